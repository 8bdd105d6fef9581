// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";

/// @notice The CREATE2 salt of the deposit of (receiptId, split): keccak256(abi.encode(receiptId, split)).
/// @dev Both are bound into the deposit's address, so the address alone fixes where its funds can go.
function depositSalt(bytes32 receiptId, address split) pure returns (bytes32) {
    return keccak256(abi.encode(receiptId, split));
}

/// @notice A call ran out of gas: the transaction needs more gas (or calls a token that burns it
///         all). Reverting, instead of reporting a failure, lets eth_estimateGas find the gas a
///         complete flush needs.
error OutOfGas();

/// @title Deposit
/// @notice A receipt's deposit address: whatever ERC-20 tokens or ETH it holds can only ever move to
///         the split it was made for, and anyone may move them.
/// @dev One implementation, deployed by DepositFactory's constructor; every deposit is an EIP-1167
///      clone of it at CREATE2(factory, depositSalt(receiptId, split), clone init code), so the
///      address is known before anything is deployed. A clone keeps no state: each call names
///      (receiptId, split) and is refused unless they hash to this very address, which no other
///      split can (a keccak256 preimage). There is no owner, no initializer, no arbitrary call and
///      no delegatecall besides the proxy's own, so no key and no argument can send funds elsewhere.
///      Reentrancy needs no guard: the only effect is "send the whole balance to the split", and a
///      reentrant call finds nothing left or sends to the same split.
///      Token calls are low-level with bounded return data (a malicious token cannot return-bomb
///      the caller) and accept tokens that return nothing (USDT).
contract Deposit {
    /// @notice The factory whose CREATE2 addresses this implementation's clones live at.
    address public immutable factory;
    /// @notice This implementation's address (what every clone delegates to).
    address public immutable implementation;

    /// @notice `amount` of `token` (address(0): ETH) moved from this deposit to `split`.
    event Swept(bytes32 indexed receiptId, address indexed split, address indexed token, uint256 amount);

    /// @notice (receiptId, split) is not the pair this deposit's address was made from.
    error NotThisDeposit(bytes32 receiptId, address split);
    /// @notice The zero address is never a split (its funds would burn).
    error ZeroSplit();
    /// @notice The token's balanceOf or transfer reverted, returned false or returned nothing usable.
    error TokenCallFailed(address token);
    /// @notice The split refused the ETH.
    error ETHRejected(address split);

    constructor() {
        factory = msg.sender;
        implementation = address(this);
    }

    /// @notice Accepts ETH sent after the deposit is deployed (before, the address simply holds it).
    receive() external payable {}

    /// @notice Moves this deposit's whole balance of `token` to `split`. Anyone may call.
    /// @return amount What was moved (0: nothing held, nothing called but balanceOf).
    function flushToken(bytes32 receiptId, address split, address token) external returns (uint256 amount) {
        _checkPair(receiptId, split);
        amount = _balanceOf(token);
        if (amount == 0) return 0;
        emit Swept(receiptId, split, token, amount);
        _transfer(token, split, amount);
    }

    /// @notice Moves this deposit's whole ETH balance to `split` with all the gas left (a split
    ///         contract's receive(), as PaymentSplitter's, may need more than 2,300). Anyone may call.
    /// @return amount The wei moved.
    function flushETH(bytes32 receiptId, address split) external returns (uint256 amount) {
        _checkPair(receiptId, split);
        amount = address(this).balance;
        if (amount == 0) return 0;
        emit Swept(receiptId, split, address(0), amount);
        uint256 gasBefore = gasleft();
        bool ok;
        assembly {
            ok := call(gas(), split, amount, 0, 0, 0, 0) // no return data copied
        }
        if (!ok) {
            if (gasleft() <= gasBefore / 64) revert OutOfGas();
            revert ETHRejected(split);
        }
    }

    function _checkPair(bytes32 receiptId, address split) private view {
        if (split == address(0)) revert ZeroSplit();
        address expected = Clones.predictDeterministicAddress(implementation, depositSalt(receiptId, split), factory);
        if (expected != address(this)) revert NotThisDeposit(receiptId, split);
    }

    function _balanceOf(address token) private view returns (uint256 amount) {
        uint256 gasBefore = gasleft();
        bool ok;
        assembly {
            mstore(0x00, 0x70a08231) // balanceOf(address)
            mstore(0x20, address())
            ok := staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20)
            ok := and(ok, gt(returndatasize(), 0x1f))
            amount := mload(0x00)
        }
        if (!ok) _callFailed(gasBefore, token);
    }

    function _transfer(address token, address to, uint256 amount) private {
        uint256 gasBefore = gasleft();
        bool ok;
        assembly {
            let ptr := mload(0x40) // scratch past the free pointer, not kept
            mstore(ptr, shl(224, 0xa9059cbb)) // transfer(address,uint256)
            mstore(add(ptr, 0x04), to)
            mstore(add(ptr, 0x24), amount)
            mstore(0x00, 0)
            ok := call(gas(), token, 0, ptr, 0x44, 0x00, 0x20)
            // Success: a word that is true, or no return data from a contract (USDT's transfer).
            let returnedTrue := and(gt(returndatasize(), 0x1f), eq(mload(0x00), 1))
            let returnedNothing := and(iszero(returndatasize()), gt(extcodesize(token), 0))
            ok := and(ok, or(returnedTrue, returnedNothing))
        }
        if (!ok) _callFailed(gasBefore, token);
    }

    /// @dev A token call that failed having used (nearly) all the gas it was given ran out of it.
    function _callFailed(uint256 gasBefore, address token) private view {
        if (gasleft() <= gasBefore / 64) revert OutOfGas();
        revert TokenCallFailed(token);
    }
}
