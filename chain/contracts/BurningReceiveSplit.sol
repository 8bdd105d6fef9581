// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {PaymentSplitter} from "@openzeppelin/contracts/finance/PaymentSplitter.sol";

/// @title BurningReceiveSplit
/// @notice Tests only: a PaymentSplitter (any may be a merchant's pre-deployed split) whose
///         receive() first burns gas without reverting: `rounds` hashing rounds, set by anyone.
///         A deposit's flushETH forwards all the gas left to the split, so it shows that the
///         operator, which pays every sweep's gas, refuses a sweep whose estimate exceeds the
///         ceiling real deposits never reach, and sweeps the other deposits without it.
contract BurningReceiveSplit is PaymentSplitter {
    /// @notice How many hashing rounds receiving ETH burns first (0: a plain PaymentSplitter).
    uint256 public rounds;
    /// @notice The last burn's result, kept so that the optimizer keeps the loop.
    bytes32 public sink;

    constructor(address[] memory payees, uint256[] memory shares_) PaymentSplitter(payees, shares_) {}

    function setRounds(uint256 n) external {
        rounds = n;
    }

    receive() external payable override {
        bytes32 h = sink;
        uint256 n = rounds;
        for (uint256 i = 0; i < n; ++i) {
            h = keccak256(abi.encodePacked(h, i));
        }
        sink = h;
        emit PaymentReceived(_msgSender(), msg.value);
    }
}
