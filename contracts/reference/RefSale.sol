// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {RefOZ721} from "./RefOZ721.sol";
import {RefERC721A} from "./RefERC721A.sol";

/// @notice Gas reference only (bench/gas.ts): a minimal sale written the usual way with OpenZeppelin
/// pieces, with the rules of Atelier's SaleFacet (price in native or one ERC-20, window, per-wallet
/// limit on the recipient, Merkle allowlist on the recipient, payout splits pushed to the
/// recipients, excess native refunded, ERC-20 shares measured at the recipient).
abstract contract RefSale is ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    struct Payout {
        address recipient;
        uint16 bps;
    }

    struct Config {
        uint128 price;
        uint40 start;
        uint40 end;
        uint32 maxPerWallet;
        bool paused;
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

    error SalePaused();
    error SaleNotStarted();
    error SaleEnded();
    error NotAllowlisted();
    error WalletLimitExceeded();
    error WrongPayment();

    Config public config;
    address public currency;
    bytes32 public merkleRoot;
    Payout[] internal payouts;
    mapping(address => uint256) public minted;

    function _checkSaleAdmin() internal view virtual;

    /// Mints `quantity` tokens to `to` (supply checked) and returns the first id.
    function _saleMint(address to, uint256 quantity) internal virtual returns (uint256 first);

    function setSale(Config calldata c, address currency_, bytes32 root, Payout[] calldata p) external {
        _checkSaleAdmin();
        config = c;
        currency = currency_;
        merkleRoot = root;
        delete payouts;
        for (uint256 i; i < p.length; ++i) {
            payouts.push(p[i]);
        }
    }

    function purchase(address to, uint256 quantity, bytes32[] calldata proof, bytes calldata data)
        external
        payable
        nonReentrant
    {
        Config memory c = config;
        if (c.paused) revert SalePaused();
        if (block.timestamp < c.start) revert SaleNotStarted();
        if (c.end != 0 && block.timestamp >= c.end) revert SaleEnded();
        bytes32 root = merkleRoot;
        if (root != bytes32(0) && !MerkleProof.verifyCalldata(proof, root, keccak256(abi.encodePacked(to)))) {
            revert NotAllowlisted();
        }
        if (c.maxPerWallet != 0) {
            uint256 m = minted[to] + quantity;
            if (m > c.maxPerWallet) revert WalletLimitExceeded();
            minted[to] = m;
        }
        uint256 first = _saleMint(to, quantity);
        uint256 amount = uint256(c.price) * quantity;
        address cur = currency;
        uint256 n = payouts.length;
        uint256 left = amount;
        if (cur == address(0)) {
            if (msg.value < amount) revert WrongPayment();
            for (uint256 i; i < n; ++i) {
                Payout memory p = payouts[i];
                uint256 share = i + 1 == n ? left : (amount * p.bps) / 10_000;
                left -= share;
                Address.sendValue(payable(p.recipient), share);
            }
            if (msg.value > amount) Address.sendValue(payable(msg.sender), msg.value - amount);
        } else {
            if (msg.value != 0) revert WrongPayment();
            for (uint256 i; i < n; ++i) {
                Payout memory p = payouts[i];
                uint256 share = i + 1 == n ? left : (amount * p.bps) / 10_000;
                left -= share;
                uint256 before = IERC20(cur).balanceOf(p.recipient);
                IERC20(cur).safeTransferFrom(msg.sender, p.recipient, share);
                if (IERC20(cur).balanceOf(p.recipient) - before != share) revert WrongPayment();
            }
        }
        emit Purchase(msg.sender, to, first, quantity, cur, amount, data);
    }
}

/// @notice Gas reference: OpenZeppelin ERC721 collection + RefSale.
contract RefOZ721Sale is RefOZ721, RefSale {
    constructor(string memory name_, string memory symbol_, uint256 maxSupply_, address owner_)
        RefOZ721(name_, symbol_, "", "", maxSupply_, owner_, 500, owner_, owner_)
    {}

    function _checkSaleAdmin() internal view override {
        _checkOwner();
    }

    function _saleMint(address to, uint256 quantity) internal override returns (uint256 first) {
        first = totalSupply + 1;
        uint256 end = first + quantity;
        require(end - 1 <= maxSupply, "max supply");
        totalSupply = end - 1;
        for (uint256 id = first; id < end; ++id) {
            _mint(to, id);
        }
    }
}

/// @notice Gas reference: ERC721A collection + RefSale.
contract RefERC721ASale is RefERC721A, RefSale {
    constructor(string memory name_, string memory symbol_, uint256 maxSupply_, address owner_)
        RefERC721A(name_, symbol_, "", "", maxSupply_, owner_, 500, owner_, owner_)
    {}

    function _checkSaleAdmin() internal view override {
        _checkOwner();
    }

    function _saleMint(address to, uint256 quantity) internal override returns (uint256 first) {
        first = _nextTokenId();
        require(_totalMinted() + quantity <= maxSupply, "max supply");
        _mint(to, quantity);
    }
}
