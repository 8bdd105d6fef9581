// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {PaymentSplitter} from "@openzeppelin/contracts/finance/PaymentSplitter.sol";

/// @title PaymentSplit
/// @notice A merchant's split contract: payees and their shares in basis points, pull payments.
/// @dev OpenZeppelin 4.9.6 PaymentSplitter does the accounting and the releases:
///      `release(address payable)` for ETH, `release(IERC20, address)` for ERC-20 tokens,
///      `releasable(...)` for what is due, an event for every release, `receive()` for ETH.
///      A release with nothing due reverts ("PaymentSplitter: account is not due payment").
///      This contract only adds that the shares are basis points: they must sum to 10,000.
contract PaymentSplit is PaymentSplitter {
    /// @notice The sum every split's shares must have.
    uint256 public constant TOTAL_BASIS_POINTS = 10_000;

    /// @notice The shares do not sum to 10,000 basis points.
    /// @param total The sum of the shares given.
    error SharesNotBasisPoints(uint256 total);

    /// @param payees Accounts paid by the split, without duplicates or the zero address.
    /// @param shares_ Each payee's share in basis points (non-zero, summing to 10,000).
    constructor(address[] memory payees, uint256[] memory shares_) PaymentSplitter(payees, shares_) {
        if (totalShares() != TOTAL_BASIS_POINTS) revert SharesNotBasisPoints(totalShares());
    }
}
