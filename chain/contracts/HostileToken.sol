// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title HostileToken
/// @notice Tests only: an ERC-20 that anyone can mint and whose transfer misbehaves on demand, to
///         show that a bad token in a sweep neither redirects funds nor blocks the other tokens.
contract HostileToken is ERC20 {
    /// @notice How transfer behaves.
    enum Mode {
        Normal, // a plain ERC-20 transfer
        Revert, // reverts
        ReturnFalse, // returns false without moving anything
        Hook // first calls hookTarget with hookData (a reentrant attempt), then transfers
    }

    Mode public mode;
    address public hookTarget;
    bytes public hookData;
    /// @notice Whether the last hook call succeeded.
    bool public hookOk;
    /// @notice The revert data of the last hook call (empty when it succeeded).
    bytes public hookResult;

    constructor() ERC20("Hostile", "HOST") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Creates `amount` base units for `to`. Anyone may mint: tests only.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setMode(Mode m) external {
        mode = m;
    }

    function setHook(address target, bytes calldata data) external {
        hookTarget = target;
        hookData = data;
    }

    function transfer(address to, uint256 amount) public override returns (bool) {
        if (mode == Mode.Revert) revert("HostileToken: transfer refused");
        if (mode == Mode.ReturnFalse) return false;
        if (mode == Mode.Hook) {
            (bool ok, bytes memory result) = hookTarget.call(hookData);
            hookOk = ok;
            hookResult = ok ? bytes("") : result;
        }
        return super.transfer(to, amount);
    }
}
