/**
 * The name of a minted token's deck: "<collection title> #<token id>", within the decks.name
 * column (200 characters). A title may itself be 200 characters, so it is shortened (by whole
 * code points) to leave room for the token id: a mint never fails on its deck's name.
 */
export const MAX_DECK_NAME = 200;

export function tokenDeckName(title: string, tokenId: number | bigint | string): string {
  const suffix = ` #${tokenId}`;
  const chars = Array.from(title);
  const room = Math.max(0, MAX_DECK_NAME - Array.from(suffix).length);
  return (chars.length > room ? chars.slice(0, room).join('').trimEnd() : title) + suffix;
}
