// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title SlowReleasableSplit
/// @notice Tests only: a contract that answers as a splitter (totalShares, payee, shares) whose
///         releasable(...) views burn gas (`rounds` hashing rounds, set by anyone) before they
///         answer 1, and whose releases do nothing. It shows that the distributor's reads of
///         what is due cost the node no more than the release gas ceiling, so that one such
///         contract cannot hold up the distribution of the others.
contract SlowReleasableSplit {
    uint256 public totalShares;
    uint256 public rounds;
    address[] private _payees;
    mapping(address => uint256) private _shares;

    constructor(address[] memory payees, uint256[] memory shares_) {
        for (uint256 i = 0; i < payees.length; ++i) {
            _payees.push(payees[i]);
            _shares[payees[i]] = shares_[i];
            totalShares += shares_[i];
        }
    }

    function setRounds(uint256 n) external {
        rounds = n;
    }

    function payee(uint256 index) external view returns (address) {
        return _payees[index];
    }

    function shares(address account) external view returns (uint256) {
        return _shares[account];
    }

    function releasable(address) external view returns (uint256) {
        return _burn();
    }

    function releasable(address, address) external view returns (uint256) {
        return _burn();
    }

    function release(address payable) external {}

    function release(address, address) external {}

    function _burn() internal view returns (uint256) {
        bytes32 h;
        uint256 n = rounds;
        for (uint256 i = 0; i < n; ++i) {
            h = keccak256(abi.encodePacked(h, i));
        }
        return uint256(h) | 1;
    }
}
