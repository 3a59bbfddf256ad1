// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title AtelierTestUSD
/// @notice A stablecoin stand-in for the dev chain and tests: 6 decimals like USDC, and an open
///         faucet (anyone may mint). Paid samples are verified against its Transfer events.
///         Never deploy it where anything has value.
contract AtelierTestUSD is ERC20 {
    constructor() ERC20("Atelier Test USD", "tUSD") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Faucet: mints `amount` (in 6-decimal units) to `to`.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
