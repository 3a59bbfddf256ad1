// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Parameters of DiamondFactory.createCollection.
struct CollectionParams {
    string name;
    string symbol;
    string baseURI;
    string contractURI;
    uint256 maxSupply;
    address royaltyReceiver;
    uint96 royaltyBps;
    address owner;
    address minter;
}

/// @notice What a collection under construction asks its factory (see CollectionInit).
interface ICollectionFactoryCallback {
    function pendingCollection()
        external
        view
        returns (CollectionParams memory params, address router, address erc721Facet, address mintFacet, address cutData);
}
