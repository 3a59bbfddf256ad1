// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Storage of a collection's on-chain sale (SaleFacet), ERC-7201 namespace atelier.storage.Sale.
/// @notice The config word holds everything a native purchase needs besides the payout words, so a
/// purchase reads 1 + (number of payouts) cold words; the currency and the Merkle root are read
/// only when the config word says they are set.
library LibSaleStorage {
    /// @custom:storage-location erc7201:atelier.storage.Sale
    struct Layout {
        /// config word:
        ///   bits   0..127  price per token, in the currency's smallest unit
        ///   bits 128..167  start (unix seconds; 0 = open from configuration)
        ///   bits 168..207  end (unix seconds, exclusive; 0 = no end)
        ///   bits 208..239  max tokens per recipient wallet (0 = no limit; counted only when set)
        ///   bits 240..247  number of payout words (0..MAX_PAYOUTS)
        ///   bit  248       configured
        ///   bit  249       paused
        ///   bit  250       a Merkle root is set
        ///   bit  251       currency is the ERC-20 in `currency` (else the native currency)
        uint256 config;
        address currency;
        bytes32 merkleRoot;
        /// payout words: recipient (bits 0..159) | basis points (bits 160..175); the bps sum to 10000
        uint256[8] payouts;
        /// tokens bought for each recipient wallet (only counted while a limit is set)
        mapping(address => uint256) minted;
    }

    bytes32 internal constant SLOT = 0x3f664a9fda974a38395d155cdb4e6079312a89db2736f5ca0de77e22afae5400;
    /// Transient slot of the purchase reentrancy lock (keccak256("atelier.sale.lock")).
    bytes32 internal constant LOCK = 0x8e111761131ef0e44a331229aa1b90522d58c737706a32be71ca60024628d76d;

    uint256 internal constant MAX_PAYOUTS = 8;
    uint256 internal constant MASK32 = (1 << 32) - 1;
    uint256 internal constant MASK40 = (1 << 40) - 1;
    uint256 internal constant MASK128 = (1 << 128) - 1;
    uint256 internal constant START_SHIFT = 128;
    uint256 internal constant END_SHIFT = 168;
    uint256 internal constant LIMIT_SHIFT = 208;
    uint256 internal constant COUNT_SHIFT = 240;
    uint256 internal constant CONFIGURED = 1 << 248;
    uint256 internal constant PAUSED = 1 << 249;
    uint256 internal constant HAS_ROOT = 1 << 250;
    uint256 internal constant IS_ERC20 = 1 << 251;
    uint256 internal constant BPS_SHIFT = 160;

    function layout_() internal pure returns (Layout storage l) {
        assembly {
            l.slot := SLOT
        }
    }
}
