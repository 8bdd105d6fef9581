// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title FakeReleasePayee
/// @notice Tests only: a split payee contract that, receiving ETH, emits PaymentReleased and
///         ERC20PaymentReleased events of its own (PaymentSplitter's signatures) claiming `fake`
///         was released. Only the split's own events are what a release paid.
contract FakeReleasePayee {
    event PaymentReleased(address to, uint256 amount);
    event ERC20PaymentReleased(address indexed token, address to, uint256 amount);

    /// @notice The amount the fake events claim.
    uint256 public fake;

    constructor(uint256 fake_) {
        fake = fake_;
    }

    receive() external payable {
        emit PaymentReleased(address(this), fake);
        emit ERC20PaymentReleased(address(0), address(this), fake);
    }
}
