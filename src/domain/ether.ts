/** Wei amounts (decimal strings, as the database and the API carry them) shown in ether. */

/** "1234500000000000" → "0.0012345": exact (no float), trailing zeros dropped; "0" → "0". */
export function weiToEther(wei: string): string {
  if (!/^\d+$/.test(wei)) throw new Error(`not a wei amount: ${wei}`);
  const s = wei.replace(/^0+(?=\d)/, '').padStart(19, '0');
  const frac = s.slice(-18).replace(/0+$/, '');
  const whole = s.slice(0, -18);
  return frac ? `${whole}.${frac}` : whole;
}
