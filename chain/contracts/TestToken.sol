// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title TestToken
/// @notice An ERC-20 with 6 decimals (like USDC and USDT) for development chains and tests.
///         Only the deployer (the owner) can mint.
contract TestToken is ERC20, Ownable {
    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) {}

    /// @notice 6 decimals, like the stablecoins it stands in for.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Create `amount` base units for `to`. Owner only.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
