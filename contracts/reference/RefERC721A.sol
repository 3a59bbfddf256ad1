// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721A} from "erc721a/contracts/ERC721A.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Gas reference only (bench/gas.ts): a standalone ERC721A collection with the same
/// features as an Atelier collection (base URI, contract URI, max supply, minter, royalty).
contract RefERC721A is ERC721A, ERC2981, Ownable {
    string private _base;
    string private _contractURI;
    uint256 public maxSupply;
    address public minter;

    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        string memory contractURI_,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps,
        address owner_,
        address minter_
    ) ERC721A(name_, symbol_) Ownable(owner_) {
        _base = baseURI_;
        _contractURI = contractURI_;
        maxSupply = maxSupply_;
        minter = minter_;
        if (royaltyReceiver != address(0)) _setDefaultRoyalty(royaltyReceiver, royaltyBps);
    }

    function mintTo(address to, uint256 quantity) external {
        require(msg.sender == minter || msg.sender == owner(), "not minter");
        require(_totalMinted() + quantity <= maxSupply, "max supply");
        _mint(to, quantity);
    }

    function contractURI() external view returns (string memory) {
        return _contractURI;
    }

    function _startTokenId() internal pure override returns (uint256) {
        return 1;
    }

    function _baseURI() internal view override returns (string memory) {
        return _base;
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC721A, ERC2981) returns (bool) {
        return ERC721A.supportsInterface(interfaceId) || ERC2981.supportsInterface(interfaceId);
    }
}
