// What a creator reads when something is refused: a sentence, not a developer's text
// (docs/admin-ui.md "Feedback"). The API's messages name the field by its path
// (`body.mint_price: …`) and contract refusals by their custom error (`InvalidMaxSupply(1)`);
// here the path becomes words ("Mint price: …") and the custom error an explanation. The status
// code is not part of the text (the ApiError keeps it for code that needs it).

/** Custom errors of the collection contracts (contracts/src) → an explanation. */
const CONTRACT_ERRORS = {
  InvalidMaxSupply: ([asked], ctx) =>
    ctx.minted != null
      ? `max supply can't be below the ${ctx.minted} tokens already minted`
      : `max supply ${asked} is below the tokens already minted`,
  MaxSupplyExceeded: ([total, max]) => `that would make ${total} tokens, more than the max supply of ${max}`,
  MintNotActive: () => 'minting is paused on the contract; resume it on the Contract tab',
  InvalidQuantity: () => 'mint at least one token',
  NotOwner: ([account]) => `only the contract's owner may do this, and ${account} is not its owner`,
  NotOwnerOrMinter: ([account]) => `only the contract's owner or minter may do this, and ${account} is neither`,
  UpgradesAreFrozen: () => 'upgrades are frozen for good on this contract',
  InvalidRoyalty: ([, bps]) => `a royalty of ${bps} basis points is not allowed (at most 10000, with a receiver)`,
  InvalidCollectionParams: ([field]) => `the contract refused the ${field}`,
};

/** "mint_price" / "mimeType" / "data.variables.0.name" → "mint price" / "mime type" / "data, variables, item 1, name". */
export function fieldWords(path) {
  return path
    .split('.')
    .map((part) =>
      /^\d+$/.test(part)
        ? `item ${Number(part) + 1}`
        : part
            .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
            .replace(/_/g, ' ')
            .toLowerCase(),
    )
    .join(', ');
}

// An identifier first (setMaxSupply) keeps its case.
const capital = (s) => (/^[a-z]+[A-Z]/.test(s) ? s : s.charAt(0).toUpperCase() + s.slice(1));

/**
 * The API's (or the page's own) message as a sentence. `ctx.minted`: tokens minted so far, for
 * the explanation of a max supply below them.
 */
export function sentence(message, ctx = {}) {
  let text = String(message ?? '').trim() || 'The request failed';
  text = text.replace(/\b([A-Z][A-Za-z0-9]+)\(([^()]*)\)/g, (whole, name, args) => {
    const explain = CONTRACT_ERRORS[name];
    return explain
      ? explain(
          args
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean),
          ctx,
        )
      : whole;
  });
  const field =
    /^(?:body|query|params|headers)\.([A-Za-z0-9_.]+): ([\s\S]*)$/.exec(text) ??
    /^([a-z][a-z0-9_]*(?: [a-z0-9_]+)*): ([\s\S]*)$/.exec(text);
  if (field) text = `${capital(fieldWords(field[1]))}: ${field[2]}`;
  text = capital(text);
  return /[.?!)]$/.test(text) ? text : `${text}.`;
}
