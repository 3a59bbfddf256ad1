/**
 * The error a bad or conflicting setting stops the start with; it names the variable. Its own
 * module so code outside the composition layer can throw it without a value import of
 * src/config.ts (README "Architecture": `config-parsed-once`).
 */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}
