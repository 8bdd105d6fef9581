// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title SpendPermissionManager
/// @notice Recurring ERC-20 allowances ("spend permissions") that a plain EOA account grants a spender,
///         with the interface of Coinbase's SpendPermissionManager (github.com/coinbase/spend-permissions):
///         the same SpendPermission and PeriodSpend structs, EIP-712 domain and typehash, function
///         selectors, events and errors for what it supports.
/// @dev Differences from Coinbase's contract: accounts are EOAs, so a signature is a plain ECDSA
///      signature over the EIP-712 hash (no ERC-6492, no ERC-1271) and `spend` pulls the tokens with
///      `transferFrom`, which needs the account to have approved this contract on the token (ERC-20
///      `approve`). Only ERC-20 tokens: no native token, no batches, no MagicSpend.
contract SpendPermissionManager is EIP712 {
    using SafeERC20 for IERC20;

    /// @notice A recurring allowance for `spender` to pull `token` from `account`.
    struct SpendPermission {
        /// @dev Account whose tokens may be spent.
        address account;
        /// @dev Entity that may spend them.
        address spender;
        /// @dev ERC-20 token contract.
        address token;
        /// @dev Most that may be spent in each period (base units).
        uint160 allowance;
        /// @dev Length of a period in seconds; periods start at `start`.
        uint48 period;
        /// @dev First second the permission is valid (inclusive, unix seconds).
        uint48 start;
        /// @dev Second the permission stops being valid (exclusive, unix seconds).
        uint48 end;
        /// @dev Distinguishes permissions that are otherwise identical.
        uint256 salt;
        /// @dev Free data for the spender.
        bytes extraData;
    }

    /// @notice A period's bounds and what was spent in it.
    struct PeriodSpend {
        /// @dev First second of the period (inclusive).
        uint48 start;
        /// @dev End of the period (exclusive).
        uint48 end;
        /// @dev Spent in the period (in SpendPermissionUsed: spent by that call).
        uint160 spend;
    }

    /// @notice EIP-712 typehash of SpendPermission (the same as Coinbase's).
    bytes32 public constant SPEND_PERMISSION_TYPEHASH = keccak256(
        "SpendPermission(address account,address spender,address token,uint160 allowance,uint48 period,uint48 start,uint48 end,uint256 salt,bytes extraData)"
    );

    /// @notice ERC-7528's address for the native token, which this manager does not support.
    address public constant NATIVE_TOKEN = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    mapping(bytes32 => bool) internal _isApproved;
    mapping(bytes32 => bool) internal _isRevoked;
    mapping(bytes32 => PeriodSpend) internal _lastUpdatedPeriod;

    /// @notice A spend permission was approved (emitted once, on its first approval).
    event SpendPermissionApproved(bytes32 indexed hash, SpendPermission spendPermission);

    /// @notice A spend permission was revoked (emitted once).
    event SpendPermissionRevoked(bytes32 indexed hash, SpendPermission spendPermission);

    /// @notice A spend permission was used; `periodSpend.spend` is the amount of this spend.
    event SpendPermissionUsed(
        bytes32 indexed hash, address indexed account, address indexed spender, address token, PeriodSpend periodSpend
    );

    /// @notice The caller is not the one the function requires.
    error InvalidSender(address sender, address expected);
    /// @notice The signature does not recover to the permission's account.
    error InvalidSignature();
    /// @notice The permission's token is the zero address.
    error ZeroToken();
    /// @notice The permission's token is the native token, which is not supported.
    error NativeTokenNotSupported();
    /// @notice The permission's spender is the zero address.
    error ZeroSpender();
    /// @notice The permission's allowance is zero.
    error ZeroAllowance();
    /// @notice The permission's period is zero.
    error ZeroPeriod();
    /// @notice The permission's start is not before its end.
    error InvalidStartEnd(uint48 start, uint48 end);
    /// @notice A spend of zero.
    error ZeroValue();
    /// @notice The permission is not approved, or is revoked.
    error UnauthorizedSpendPermission();
    /// @notice The permission has not started yet.
    error BeforeSpendPermissionStart(uint48 currentTimestamp, uint48 start);
    /// @notice The permission has ended.
    error AfterSpendPermissionEnd(uint48 currentTimestamp, uint48 end);
    /// @notice The period's total spend would not fit in uint160.
    error SpendValueOverflow(uint256 value);
    /// @notice The period's total spend would exceed the allowance.
    error ExceededSpendPermission(uint256 value, uint256 allowance);

    modifier requireSender(address expected) {
        if (msg.sender != expected) revert InvalidSender(msg.sender, expected);
        _;
    }

    constructor() EIP712("Spend Permission Manager", "1") {}

    /// @notice Approve a permission by a call from its account.
    /// @return True when the permission is approved and not revoked.
    function approve(SpendPermission calldata spendPermission)
        external
        requireSender(spendPermission.account)
        returns (bool)
    {
        return _approve(spendPermission);
    }

    /// @notice Approve a permission with the account's EIP-712 signature (65 bytes, r||s||v), sent by anyone.
    /// @return True when the permission is approved and not revoked.
    function approveWithSignature(SpendPermission calldata spendPermission, bytes calldata signature)
        external
        returns (bool)
    {
        (address signer, ECDSA.RecoverError err) = ECDSA.tryRecover(getHash(spendPermission), signature);
        if (err != ECDSA.RecoverError.NoError || signer == address(0) || signer != spendPermission.account) {
            revert InvalidSignature();
        }
        return _approve(spendPermission);
    }

    /// @notice Revoke a permission for good, by a call from its account.
    function revoke(SpendPermission calldata spendPermission) external requireSender(spendPermission.account) {
        _revoke(spendPermission);
    }

    /// @notice Revoke a permission for good, by a call from its spender.
    function revokeAsSpender(SpendPermission calldata spendPermission)
        external
        requireSender(spendPermission.spender)
    {
        _revoke(spendPermission);
    }

    /// @notice Pull `value` of the permission's token from its account to its spender. Spender only.
    /// @dev Reverts unless the permission is approved and not revoked, now is in [start, end), and the
    ///      current period's spend plus `value` is at most the allowance.
    function spend(SpendPermission calldata spendPermission, uint160 value)
        external
        requireSender(spendPermission.spender)
    {
        _useSpendPermission(spendPermission, value);
        IERC20(spendPermission.token).safeTransferFrom(spendPermission.account, spendPermission.spender, value);
    }

    /// @notice Whether the permission was approved (revoked or not).
    function isApproved(SpendPermission calldata spendPermission) public view returns (bool) {
        return _isApproved[getHash(spendPermission)];
    }

    /// @notice Whether the permission was revoked.
    function isRevoked(SpendPermission calldata spendPermission) public view returns (bool) {
        return _isRevoked[getHash(spendPermission)];
    }

    /// @notice Whether the permission is approved and not revoked.
    function isValid(SpendPermission calldata spendPermission) public view returns (bool) {
        bytes32 hash = getHash(spendPermission);
        return _isApproved[hash] && !_isRevoked[hash];
    }

    /// @notice The last period in which the permission was used, with its total spend.
    function getLastUpdatedPeriod(SpendPermission calldata spendPermission) public view returns (PeriodSpend memory) {
        return _lastUpdatedPeriod[getHash(spendPermission)];
    }

    /// @notice The current period and what was spent in it.
    /// @dev Periods are [start + n*period, min(end, start + (n+1)*period)). Reverts outside [start, end).
    function getCurrentPeriod(SpendPermission calldata spendPermission) public view returns (PeriodSpend memory) {
        return _currentPeriod(spendPermission, getHash(spendPermission));
    }

    /// @notice The EIP-712 hash the account signs (domain "Spend Permission Manager", version "1",
    ///         this chain, this contract).
    function getHash(SpendPermission calldata spendPermission) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    SPEND_PERMISSION_TYPEHASH,
                    spendPermission.account,
                    spendPermission.spender,
                    spendPermission.token,
                    spendPermission.allowance,
                    spendPermission.period,
                    spendPermission.start,
                    spendPermission.end,
                    spendPermission.salt,
                    keccak256(spendPermission.extraData)
                )
            )
        );
    }

    function _approve(SpendPermission calldata spendPermission) internal returns (bool) {
        if (spendPermission.token == address(0)) revert ZeroToken();
        if (spendPermission.token == NATIVE_TOKEN) revert NativeTokenNotSupported();
        if (spendPermission.spender == address(0)) revert ZeroSpender();
        if (spendPermission.period == 0) revert ZeroPeriod();
        if (spendPermission.allowance == 0) revert ZeroAllowance();
        if (spendPermission.start >= spendPermission.end) {
            revert InvalidStartEnd(spendPermission.start, spendPermission.end);
        }

        bytes32 hash = getHash(spendPermission);
        if (_isRevoked[hash]) return false;
        if (!_isApproved[hash]) {
            _isApproved[hash] = true;
            emit SpendPermissionApproved(hash, spendPermission);
        }
        return true;
    }

    function _revoke(SpendPermission calldata spendPermission) internal {
        bytes32 hash = getHash(spendPermission);
        if (_isRevoked[hash]) return;
        _isRevoked[hash] = true;
        emit SpendPermissionRevoked(hash, spendPermission);
    }

    function _currentPeriod(SpendPermission calldata spendPermission, bytes32 hash)
        internal
        view
        returns (PeriodSpend memory)
    {
        uint48 now_ = uint48(block.timestamp);
        if (now_ < spendPermission.start) revert BeforeSpendPermissionStart(now_, spendPermission.start);
        if (now_ >= spendPermission.end) revert AfterSpendPermissionEnd(now_, spendPermission.end);

        PeriodSpend memory last = _lastUpdatedPeriod[hash];
        if (last.spend != 0 && now_ < last.end) return last;

        uint48 periodStart = now_ - (now_ - spendPermission.start) % spendPermission.period;
        uint256 periodEnd = uint256(periodStart) + spendPermission.period;
        if (periodEnd > spendPermission.end) periodEnd = spendPermission.end;
        return PeriodSpend({start: periodStart, end: uint48(periodEnd), spend: 0});
    }

    function _useSpendPermission(SpendPermission calldata spendPermission, uint160 value) internal {
        if (value == 0) revert ZeroValue();
        bytes32 hash = getHash(spendPermission);
        if (!_isApproved[hash] || _isRevoked[hash]) revert UnauthorizedSpendPermission();

        PeriodSpend memory current = _currentPeriod(spendPermission, hash);
        uint256 total = uint256(current.spend) + value;
        if (total > type(uint160).max) revert SpendValueOverflow(total);
        if (total > spendPermission.allowance) revert ExceededSpendPermission(total, spendPermission.allowance);

        current.spend = uint160(total);
        _lastUpdatedPeriod[hash] = current;
        emit SpendPermissionUsed(
            hash,
            spendPermission.account,
            spendPermission.spender,
            spendPermission.token,
            PeriodSpend({start: current.start, end: current.end, spend: value})
        );
    }
}
