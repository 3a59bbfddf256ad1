// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice ERC-4906 events (interface id 0x49064906).
interface IERC4906Events {
    event MetadataUpdate(uint256 _tokenId);
    event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);
}

/// @notice The one-way metadata freeze (docs/contracts.md "Frozen metadata").
interface IMetadataFreezeEvents {
    event MetadataFrozen(string baseURI, string contractURI);
}

/// @notice ERC-7572 event.
interface IERC7572Events {
    event ContractURIUpdated();
}

/// @notice Events of the mint configuration (not part of any ERC; emitted for the indexer).
interface IMintEvents {
    event MintActiveChanged(bool active);
    event MinterChanged(address indexed previousMinter, address indexed newMinter);
    event MaxSupplyChanged(uint256 maxSupply);
}
