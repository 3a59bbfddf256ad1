// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Gas reference only (bench/gas.ts): a standalone OpenZeppelin ERC721 collection with the
/// same features as an Atelier collection (base URI, contract URI, max supply, minter, royalty).
contract RefOZ721 is ERC721, ERC2981, Ownable {
    string private _base;
    string private _contractURI;
    uint256 public maxSupply;
    uint256 public totalSupply;
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
    ) ERC721(name_, symbol_) Ownable(owner_) {
        _base = baseURI_;
        _contractURI = contractURI_;
        maxSupply = maxSupply_;
        minter = minter_;
        if (royaltyReceiver != address(0)) _setDefaultRoyalty(royaltyReceiver, royaltyBps);
    }

    function mintTo(address to, uint256 quantity) external {
        require(msg.sender == minter || msg.sender == owner(), "not minter");
        uint256 start = totalSupply + 1;
        uint256 end = start + quantity;
        require(end - 1 <= maxSupply, "max supply");
        totalSupply = end - 1;
        for (uint256 id = start; id < end; ++id) {
            _mint(to, id);
        }
    }

    function contractURI() external view returns (string memory) {
        return _contractURI;
    }

    function _baseURI() internal view override returns (string memory) {
        return _base;
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC721, ERC2981) returns (bool) {
        return super.supportsInterface(interfaceId);
    }
}
