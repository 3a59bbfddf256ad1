// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";
import {LibCore} from "../libraries/LibStorage.sol";
import {LibMint} from "../libraries/LibMint.sol";
import {LibSaleStorage as S} from "../libraries/LibSaleStorage.sol";

/// @title A collection's on-chain sale: a collector pays and mints in one transaction.
/// @notice The owner configures price, currency (native or one ERC-20), window, per-wallet limit,
/// Merkle allowlist and payout splits; `purchase` checks them, mints through the same write as
/// mintTo (LibMint: one counter, one supply cap), then pushes the payment straight from the buyer
/// to the payout recipients (ERC-20: transferFrom buyer -> recipient; native: forwarded in the same
/// call), so the collection never holds funds (docs/contracts.md "Sale"). Effects come before every
/// external call, and a transient lock refuses any re-entry into purchase.
contract SaleFacet is IAtelierErrors {
    struct Payout {
        address recipient;
        uint16 bps;
    }

    struct SaleConfig {
        /// address(0) = the chain's native currency
        address currency;
        /// per token, in the currency's smallest unit (< 2^128)
        uint256 price;
        /// unix seconds; purchases from start (inclusive) to end (exclusive); end 0 = no end
        uint64 start;
        uint64 end;
        /// tokens per recipient wallet over the sale; 0 = no limit
        uint32 maxPerWallet;
        /// OpenZeppelin MerkleProof root of the allowed recipient wallets; 0 = anyone
        bytes32 merkleRoot;
        /// basis points summing to 10000 (empty only for a free sale)
        Payout[] payouts;
    }

    event Purchase(
        address indexed buyer,
        address indexed to,
        uint256 firstTokenId,
        uint256 quantity,
        address currency,
        uint256 amount,
        bytes data
    );
    event SaleConfigured(address currency, uint256 price, uint64 start, uint64 end, uint32 maxPerWallet, bytes32 merkleRoot);
    event SalePausedChanged(bool paused);

    error SaleNotConfigured();
    error SalePaused();
    error SaleNotStarted(uint256 start);
    error SaleEnded(uint256 end);
    error SoldOut(uint256 requested, uint256 remaining);
    error WalletLimitExceeded(address wallet, uint256 limit);
    error NotAllowlisted(address wallet);
    error WrongPayment(uint256 expected, uint256 received);
    error PayoutFailed(address recipient);
    error RefundFailed(address buyer);
    error Reentrancy();
    error InvalidSaleConfig(string field);

    uint256 private constant ADDRESS_MASK = (1 << 160) - 1;

    // ------------------------------------------------------------------ purchase

    /// @notice Mints `quantity` tokens to `to` for price x quantity, paid by the caller. `proof` proves
    /// `to` is on the allowlist (ignored without a root); `data` is emitted as is (the platform reads
    /// the buyer's choices from it). Native: send at least the amount, the excess is refunded.
    /// ERC-20: approve the collection for the amount first; send no native value.
    function purchase(address to, uint256 quantity, bytes32[] calldata proof, bytes calldata data)
        external
        payable
    {
        bytes32 lock = S.LOCK;
        bool locked;
        assembly {
            locked := tload(lock)
        }
        if (locked) revert Reentrancy();
        assembly {
            tstore(lock, 1)
        }
        S.Layout storage s = S.layout_();
        uint256 c = s.config;
        uint256 first = _admitAndMint(s, c, to, quantity, proof);
        uint256 amount = (c & S.MASK128) * quantity; // checked
        address currency = _collect(s, c, amount);
        emit Purchase(msg.sender, to, first, quantity, currency, amount, data);
        assembly {
            tstore(lock, 0)
        }
    }

    /// Every refusal, then the effects (wallet count, ids, balance, supply), before any external call.
    function _admitAndMint(S.Layout storage s, uint256 c, address to, uint256 quantity, bytes32[] calldata proof)
        private
        returns (uint256 first)
    {
        if (c & S.CONFIGURED == 0) revert SaleNotConfigured();
        uint256 w = LibCore.mintWord();
        if (c & S.PAUSED != 0 || w & LibCore.MINT_ACTIVE == 0) revert SalePaused();
        {
            uint256 start = (c >> S.START_SHIFT) & S.MASK40;
            if (block.timestamp < start) revert SaleNotStarted(start);
            uint256 end = (c >> S.END_SHIFT) & S.MASK40;
            if (end != 0 && block.timestamp >= end) revert SaleEnded(end);
        }
        if (to == address(0)) revert IERC721Errors.ERC721InvalidReceiver(address(0));
        if (quantity == 0) revert InvalidQuantity();
        first = (w >> LibCore.NEXT_SHIFT) & LibCore.MASK40;
        uint256 next = first + quantity; // checked
        {
            uint256 max = (w >> LibCore.MAX_SHIFT) & LibCore.MASK40;
            if (next - 1 > max) revert SoldOut(quantity, max + 1 - first);
        }
        if (c & S.HAS_ROOT != 0) {
            if (!MerkleProof.verifyCalldata(proof, s.merkleRoot, keccak256(abi.encodePacked(to)))) {
                revert NotAllowlisted(to);
            }
        }
        uint256 limit = (c >> S.LIMIT_SHIFT) & S.MASK32;
        if (limit != 0) {
            uint256 bought = s.minted[to] + quantity;
            if (bought > limit) revert WalletLimitExceeded(to, limit);
            s.minted[to] = bought;
        }
        LibMint.mint(w, to, first, next);
    }

    /// Takes exactly `amount` from the caller and pays it out; returns the currency (0 = native).
    function _collect(S.Layout storage s, uint256 c, uint256 amount) private returns (address currency) {
        if (c & S.IS_ERC20 == 0) {
            if (msg.value < amount) revert WrongPayment(amount, msg.value);
            if (amount != 0) _payNative(s, c, amount);
            if (msg.value > amount) {
                uint256 excess = msg.value - amount;
                bool ok;
                assembly {
                    ok := call(gas(), caller(), excess, 0, 0, 0, 0)
                }
                if (!ok) revert RefundFailed(msg.sender);
            }
        } else {
            if (msg.value != 0) revert WrongPayment(0, msg.value);
            currency = s.currency;
            if (amount != 0) _payToken(s, c, currency, amount);
        }
    }

    /// Splits `amount` by the payout words; the last recipient takes the rounding remainder.
    function _payNative(S.Layout storage s, uint256 c, uint256 amount) private {
        uint256 n = (c >> S.COUNT_SHIFT) & 0xff;
        uint256 left = amount;
        for (uint256 i; i < n; ++i) {
            uint256 p = s.payouts[i];
            uint256 share = i + 1 == n ? left : (amount * (p >> S.BPS_SHIFT)) / 10_000;
            left -= share;
            address r = address(uint160(p & ADDRESS_MASK));
            bool ok;
            assembly {
                ok := call(gas(), r, share, 0, 0, 0, 0)
            }
            if (!ok) revert PayoutFailed(r);
        }
    }

    /// transferFrom(buyer -> recipient) per share, each checked by the recipient's balance change,
    /// so a token that takes a fee, skips the transfer or lies about it cannot underpay.
    function _payToken(S.Layout storage s, uint256 c, address token, uint256 amount) private {
        uint256 n = (c >> S.COUNT_SHIFT) & 0xff;
        uint256 left = amount;
        for (uint256 i; i < n; ++i) {
            uint256 p = s.payouts[i];
            uint256 share = i + 1 == n ? left : (amount * (p >> S.BPS_SHIFT)) / 10_000;
            left -= share;
            address r = address(uint160(p & ADDRESS_MASK));
            if (share == 0 || r == msg.sender) continue; // paying oneself moves nothing
            uint256 before = _balanceOf(token, r);
            _transferFrom(token, msg.sender, r, share);
            uint256 received = _balanceOf(token, r) - before; // checked: a balance that shrank reverts
            if (received != share) revert WrongPayment(share, received);
        }
    }

    function _balanceOf(address token, address who) private view returns (uint256 b) {
        bool ok;
        assembly {
            mstore(0x00, 0x70a08231) // balanceOf(address)
            mstore(0x20, and(who, 0xffffffffffffffffffffffffffffffffffffffff)) // inline assembly sees dirty upper bits
            ok := and(gt(returndatasize(), 0x1f), staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20))
            b := mload(0x00)
        }
        if (!ok) revert PayoutFailed(who);
    }

    /// SafeERC20-style transferFrom: success and (no return data or true).
    function _transferFrom(address token, address from, address to, uint256 value) private {
        bool ok;
        assembly {
            let m := mload(0x40)
            mstore(m, 0x23b872dd00000000000000000000000000000000000000000000000000000000)
            mstore(add(m, 0x04), and(from, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(m, 0x24), and(to, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(m, 0x44), value)
            ok := call(gas(), token, 0, m, 0x64, 0x00, 0x20)
            ok := and(ok, or(and(eq(mload(0x00), 1), gt(returndatasize(), 0x1f)), iszero(returndatasize())))
            if and(ok, iszero(returndatasize())) { ok := gt(extcodesize(token), 0) }
        }
        if (!ok) revert PayoutFailed(to);
    }

    // ------------------------------------------------------------------ configuration (owner)

    /// @notice Owner only (for a platform-owned collection the owner is the platform wallet).
    /// Replaces the whole configuration; the per-wallet counts and the paused flag are kept.
    function setSale(SaleConfig calldata cfg) external {
        LibCore.enforceOwner();
        if (cfg.price > S.MASK128) revert InvalidSaleConfig("price");
        if (cfg.start > S.MASK40) revert InvalidSaleConfig("start");
        if (cfg.end > S.MASK40 || (cfg.end != 0 && cfg.end <= cfg.start)) revert InvalidSaleConfig("end");
        if (cfg.currency != address(0) && cfg.currency.code.length == 0) revert InvalidSaleConfig("currency");
        uint256 n = cfg.payouts.length;
        if (n > S.MAX_PAYOUTS || (n == 0 && cfg.price != 0)) revert InvalidSaleConfig("payouts");
        S.Layout storage s = S.layout_();
        uint256 sum;
        for (uint256 i; i < n; ++i) {
            Payout calldata p = cfg.payouts[i];
            if (p.recipient == address(0)) revert InvalidSaleConfig("payouts.recipient");
            if (p.bps == 0) revert InvalidSaleConfig("payouts.bps");
            sum += p.bps;
            s.payouts[i] = uint256(uint160(p.recipient)) | (uint256(p.bps) << S.BPS_SHIFT);
        }
        if (n != 0 && sum != 10_000) revert InvalidSaleConfig("payouts.bps");
        uint256 c = cfg.price | (uint256(cfg.start) << S.START_SHIFT) | (uint256(cfg.end) << S.END_SHIFT)
            | (uint256(cfg.maxPerWallet) << S.LIMIT_SHIFT) | (n << S.COUNT_SHIFT) | S.CONFIGURED
            | (s.config & S.PAUSED);
        if (cfg.merkleRoot != bytes32(0)) {
            c |= S.HAS_ROOT;
            s.merkleRoot = cfg.merkleRoot;
        }
        if (cfg.currency != address(0)) {
            c |= S.IS_ERC20;
            s.currency = cfg.currency;
        }
        s.config = c;
        emit SaleConfigured(cfg.currency, cfg.price, cfg.start, cfg.end, cfg.maxPerWallet, cfg.merkleRoot);
    }

    /// @notice Owner only. A paused sale refuses purchase with SalePaused (so does mintActive false).
    function setSalePaused(bool paused) external {
        LibCore.enforceOwner();
        S.Layout storage s = S.layout_();
        s.config = paused ? s.config | S.PAUSED : s.config & ~S.PAUSED;
        emit SalePausedChanged(paused);
    }

    // ------------------------------------------------------------------ views

    /// @notice The sale as configured (zero values and configured = false before setSale).
    function saleConfig() external view returns (SaleConfig memory cfg, bool paused, bool configured) {
        S.Layout storage s = S.layout_();
        uint256 c = s.config;
        cfg.price = c & S.MASK128;
        cfg.start = uint64((c >> S.START_SHIFT) & S.MASK40);
        cfg.end = uint64((c >> S.END_SHIFT) & S.MASK40);
        cfg.maxPerWallet = uint32((c >> S.LIMIT_SHIFT) & S.MASK32);
        if (c & S.HAS_ROOT != 0) cfg.merkleRoot = s.merkleRoot;
        if (c & S.IS_ERC20 != 0) cfg.currency = s.currency;
        uint256 n = (c >> S.COUNT_SHIFT) & 0xff;
        cfg.payouts = new Payout[](n);
        for (uint256 i; i < n; ++i) {
            uint256 p = s.payouts[i];
            cfg.payouts[i] = Payout(address(uint160(p & ADDRESS_MASK)), uint16(p >> S.BPS_SHIFT));
        }
        paused = c & S.PAUSED != 0;
        configured = c & S.CONFIGURED != 0;
    }

    /// @notice Tokens bought for `wallet` while a per-wallet limit was set.
    function saleMinted(address wallet) external view returns (uint256) {
        return S.layout_().minted[wallet];
    }
}
