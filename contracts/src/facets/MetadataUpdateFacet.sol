// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC4906Events} from "../interfaces/IEvents.sol";
import {IAtelierErrors} from "../libraries/Errors.sol";
import {LibCore} from "../libraries/LibStorage.sol";

/// @title ERC-4906 metadata update signals (for marketplaces and indexers).
/// @notice setBaseURI (ERC721Facet) emits BatchMetadataUpdate(1, type(uint256).max) itself.
contract MetadataUpdateFacet is IERC4906Events, IAtelierErrors {
    /// @notice Owner or minter. Emits MetadataUpdate(tokenId), e.g. when a token's artwork is ready.
    function emitMetadataUpdate(uint256 tokenId) external {
        LibCore.enforceOwnerOrMinter();
        emit MetadataUpdate(tokenId);
    }

    /// @notice Owner or minter. Emits BatchMetadataUpdate(fromTokenId, toTokenId), bounds inclusive.
    function emitBatchMetadataUpdate(uint256 fromTokenId, uint256 toTokenId) external {
        LibCore.enforceOwnerOrMinter();
        if (fromTokenId > toTokenId) revert InvalidRange(fromTokenId, toTokenId);
        emit BatchMetadataUpdate(fromTokenId, toTokenId);
    }
}
