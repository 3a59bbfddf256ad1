// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {LibCore, LibERC721Storage} from "../libraries/LibStorage.sol";
import {LibProxy} from "../libraries/LibProxy.sol";
import {IERC4906Events} from "../interfaces/IEvents.sol";

/// @title ERC-721 and its metadata extension for a collection.
/// @notice Ownership is stored ERC721A-style: a mint writes one packed record per run of at most
/// MAX_BATCH (10) consecutive tokens; the owner of a token without a record of its own is the owner
/// in the nearest record below it, at most MAX_BATCH - 1 records away. Token ids start at 1.
contract ERC721Facet is IERC721Errors, IERC4906Events {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    bytes32 private constant TRANSFER_SIG = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef;
    uint256 private constant BASE = uint256(LibERC721Storage.OWNERSHIPS);

    // ------------------------------------------------------------------ views

    function balanceOf(address owner) external view returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        return LibERC721Storage.layout_().balances[owner];
    }

    function ownerOf(uint256 tokenId) external view returns (address) {
        (uint256 rec,) = _record(tokenId);
        return address(uint160(rec));
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        _record(tokenId);
        return LibERC721Storage.layout_().tokenApprovals[tokenId];
    }

    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return LibERC721Storage.layout_().operatorApprovals[owner][operator];
    }

    function name() external view returns (string memory) {
        return LibProxy.name();
    }

    function symbol() external view returns (string memory) {
        return LibProxy.symbol();
    }

    /// @notice baseURI + decimal tokenId ("" when the base URI is empty).
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        _record(tokenId);
        string memory base = _baseURI();
        if (bytes(base).length == 0) return "";
        return string.concat(base, Strings.toString(tokenId));
    }

    // ------------------------------------------------------------------ owner

    /// @notice Owner only. Emits ERC-4906 BatchMetadataUpdate(1, type(uint256).max).
    function setBaseURI(string calldata baseURI) external {
        LibCore.enforceOwner();
        LibERC721Storage.layout_().baseURI = baseURI;
        LibCore.setOwnerWord(LibCore.ownerWord() | LibCore.BASE_URI_SET);
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    // ------------------------------------------------------------------ approvals

    function approve(address to, uint256 tokenId) external {
        (uint256 rec, uint256 head) = _record(tokenId);
        address owner = address(uint160(rec));
        if (msg.sender != owner && !LibERC721Storage.layout_().operatorApprovals[owner][msg.sender]) {
            revert ERC721InvalidApprover(msg.sender);
        }
        LibERC721Storage.layout_().tokenApprovals[tokenId] = to;
        // The token gets a record of its own carrying the hasApproval flag, so transfers of tokens
        // never approved do not need to read the approvals slot.
        uint256 newRec;
        if (head == tokenId) {
            newRec = rec | LibERC721Storage.HAS_APPROVAL;
        } else {
            uint256 runEnd = head + ((rec >> LibERC721Storage.SPAN_SHIFT) & LibERC721Storage.SPAN_MASK);
            newRec = uint256(uint160(owner)) | ((runEnd - tokenId) << LibERC721Storage.SPAN_SHIFT)
                | LibERC721Storage.HAS_APPROVAL;
        }
        if (newRec != rec) _store(tokenId, newRec);
        emit Approval(owner, to, tokenId);
    }

    function setApprovalForAll(address operator, bool approved) external {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        LibERC721Storage.layout_().operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    // ------------------------------------------------------------------ transfers

    function transferFrom(address from, address to, uint256 tokenId) external {
        _transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        _transfer(from, to, tokenId);
        _checkReceiver(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes calldata data) external {
        _transfer(from, to, tokenId);
        _checkReceiver(from, to, tokenId, data);
    }

    // ------------------------------------------------------------------ internals

    function _baseURI() private view returns (string memory) {
        if (LibCore.ownerWord() & LibCore.BASE_URI_SET != 0) return LibERC721Storage.layout_().baseURI;
        (string memory base,) = LibProxy.initialURIs();
        return base;
    }

    function _load(uint256 tokenId) private view returns (uint256 v) {
        uint256 base = BASE;
        assembly {
            v := sload(add(base, tokenId))
        }
    }

    function _store(uint256 tokenId, uint256 v) private {
        uint256 base = BASE;
        assembly {
            sstore(add(base, tokenId), v)
        }
    }

    /// The ownership record that covers tokenId and the token id it is stored at.
    function _record(uint256 tokenId) private view returns (uint256 rec, uint256 head) {
        uint256 next = (LibCore.mintWord() >> LibCore.NEXT_SHIFT) & LibCore.MASK40;
        if (tokenId == 0 || tokenId >= next) revert ERC721NonexistentToken(tokenId);
        uint256 base = BASE;
        uint256 maxBatch = LibERC721Storage.MAX_BATCH;
        assembly {
            head := tokenId
            rec := sload(add(base, head))
            if iszero(rec) {
                // bounded: every run of at most MAX_BATCH tokens starts with a record
                let lowest := 0
                if gt(tokenId, maxBatch) { lowest := sub(tokenId, maxBatch) }
                for {} 1 {} {
                    head := sub(head, 1)
                    if iszero(gt(head, lowest)) { break }
                    rec := sload(add(base, head))
                    if rec { break }
                }
            }
        }
        if (rec == 0) revert ERC721NonexistentToken(tokenId);
    }

    function _transfer(address from, address to, uint256 tokenId) private {
        (uint256 rec, uint256 head) = _record(tokenId);
        address owner = address(uint160(rec));
        if (owner != from) revert ERC721IncorrectOwner(from, tokenId, owner);
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        LibERC721Storage.Layout storage l = LibERC721Storage.layout_();
        bool approvalFlag = head == tokenId && (rec & LibERC721Storage.HAS_APPROVAL) != 0;
        if (msg.sender != from && !l.operatorApprovals[from][msg.sender]) {
            if (!approvalFlag || l.tokenApprovals[tokenId] != msg.sender) {
                revert ERC721InsufficientApproval(msg.sender, tokenId);
            }
        }
        if (approvalFlag) delete l.tokenApprovals[tokenId];
        unchecked {
            l.balances[from] -= 1;
            l.balances[to] += 1;
        }
        uint256 runEnd = head + ((rec >> LibERC721Storage.SPAN_SHIFT) & LibERC721Storage.SPAN_MASK);
        _store(
            tokenId,
            uint256(uint160(to)) | ((runEnd - tokenId) << LibERC721Storage.SPAN_SHIFT) | LibERC721Storage.NEXT_INITIALIZED
        );
        // Keep tokenId + 1 (same run, no record yet) with its owner.
        if (!(head == tokenId && (rec & LibERC721Storage.NEXT_INITIALIZED) != 0)) {
            uint256 nextId = tokenId + 1;
            if (nextId < runEnd && _load(nextId) == 0) {
                _store(nextId, uint256(uint160(from)) | ((runEnd - nextId) << LibERC721Storage.SPAN_SHIFT));
            }
        }
        assembly {
            log4(0, 0, TRANSFER_SIG, and(from, 0xffffffffffffffffffffffffffffffffffffffff), and(to, 0xffffffffffffffffffffffffffffffffffffffff), tokenId)
        }
    }

    function _checkReceiver(address from, address to, uint256 tokenId, bytes memory data) private {
        if (to.code.length == 0) return;
        try IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data) returns (bytes4 retval) {
            if (retval != IERC721Receiver.onERC721Received.selector) revert ERC721InvalidReceiver(to);
        } catch (bytes memory reason) {
            if (reason.length == 0) revert ERC721InvalidReceiver(to);
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
    }
}
