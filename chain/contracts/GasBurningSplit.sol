// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {PaymentSplitter} from "@openzeppelin/contracts/finance/PaymentSplitter.sol";

/// @title GasBurningSplit
/// @notice Tests only: a PaymentSplitter (any may be a merchant's pre-deployed split) whose
///         releases first burn gas without reverting: `rounds` hashing rounds, set by anyone.
///         It shows that the operator, which pays the gas of every release, refuses a release
///         whose estimate exceeds the ceiling a real PaymentSplitter never reaches.
contract GasBurningSplit is PaymentSplitter {
    /// @notice How many hashing rounds a release burns first (0: a plain release).
    uint256 public rounds;
    /// @notice The last burn's result, kept so that the optimizer keeps the loop.
    bytes32 public sink;

    constructor(address[] memory payees, uint256[] memory shares_) PaymentSplitter(payees, shares_) {}

    function setRounds(uint256 n) external {
        rounds = n;
    }

    function release(address payable account) public override {
        _burn();
        super.release(account);
    }

    function release(IERC20 token, address account) public override {
        _burn();
        super.release(token, account);
    }

    function _burn() internal {
        bytes32 h = sink;
        uint256 n = rounds;
        for (uint256 i = 0; i < n; ++i) {
            h = keccak256(abi.encodePacked(h, i));
        }
        sink = h;
    }
}
