// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {Deposit, depositSalt, OutOfGas} from "./Deposit.sol";

/// @title DepositFactory
/// @notice One per chain. Knows every receipt's deposit address before it exists and sweeps many
///         deposits in one transaction, deploying each one's clone on first use. Permissionless:
///         no owner, no configuration; a sweep can only move funds to each deposit's own split.
/// @dev The implementation is deployed by the constructor, so its address is the factory's first
///      CREATE address (nonce 1): off-chain code computes every deposit address from the factory's
///      address alone (CREATE2 of the EIP-1167 init code, salt depositSalt(receiptId, split)).
///      A sweep catches each (deposit, token) failure and reports it as SweepFailed, so one bad
///      token or a split refusing ETH does not stop the others; successes are the deposits' Swept
///      events. A flush that runs out of gas reverts the whole sweep (OutOfGas), so that gas
///      estimation finds the gas a complete sweep needs; a token that burns all the gas it is
///      given therefore blocks the batches that list it: sweep only the tokens you configured.
contract DepositFactory {
    /// @notice A deposit: the receipt it belongs to and the split its funds go to.
    struct DepositKey {
        bytes32 receiptId;
        address split;
    }

    /// @notice The Deposit every deposit address is a clone of.
    address public immutable implementation;

    /// @notice The clone at `deposit` was deployed (by its first sweep).
    event DepositDeployed(bytes32 indexed receiptId, address indexed split, address indexed deposit);
    /// @notice Flushing `token` (address(0): ETH) from `deposit` failed with `reason` (a Deposit
    ///         error, or empty when out of gas); the funds stay there, still bound to the split.
    event SweepFailed(bytes32 indexed receiptId, address indexed deposit, address indexed token, bytes reason);

    /// @notice The zero address is never a split.
    error ZeroSplit();

    constructor() {
        implementation = address(new Deposit());
    }

    /// @notice The deposit address of (receiptId, split), deployed or not.
    function depositAddress(bytes32 receiptId, address split) external view returns (address) {
        return Clones.predictDeterministicAddress(implementation, depositSalt(receiptId, split));
    }

    /// @notice For every deposit: deploys its clone if absent, moves its whole balance of every
    ///         token in `tokens` and its ETH to its split. Anyone may call.
    function sweep(DepositKey[] calldata deposits, address[] calldata tokens) external {
        for (uint256 i; i < deposits.length; ++i) {
            _sweepOne(deposits[i].receiptId, deposits[i].split, tokens);
        }
    }

    function _sweepOne(bytes32 receiptId, address split, address[] calldata tokens) private {
        if (split == address(0)) revert ZeroSplit();
        bytes32 salt = depositSalt(receiptId, split);
        address d = Clones.predictDeterministicAddress(implementation, salt);
        if (d.code.length == 0) {
            // ETH sent to the address before this stays in its balance; flushETH below forwards it.
            Clones.cloneDeterministic(implementation, salt);
            emit DepositDeployed(receiptId, split, d);
        }
        Deposit dep = Deposit(payable(d));
        for (uint256 j; j < tokens.length; ++j) {
            uint256 gasBefore = gasleft();
            try dep.flushToken(receiptId, split, tokens[j]) {} catch (bytes memory reason) {
                _failed(gasBefore, receiptId, d, tokens[j], reason);
            }
        }
        if (d.balance > 0) {
            uint256 gasBefore = gasleft();
            try dep.flushETH(receiptId, split) {} catch (bytes memory reason) {
                _failed(gasBefore, receiptId, d, address(0), reason);
            }
        }
    }

    /// @dev A flush that ran out of gas (the deposit says so, or it used up nearly all the gas it
    ///      was given) reverts the whole sweep instead of being reported: else a transaction given
    ///      too little gas, as eth_estimateGas' search tries, would succeed having skipped deposits.
    function _failed(uint256 gasBefore, bytes32 receiptId, address d, address token, bytes memory reason) private {
        if (gasleft() <= gasBefore / 64 || bytes4(reason) == OutOfGas.selector) revert OutOfGas();
        emit SweepFailed(receiptId, d, token, reason);
    }
}
