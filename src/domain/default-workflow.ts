/** The workflow a generation runs when its collection names none (docs/jobs.md): the built-in procedural renderer. */
export const DEFAULT_WORKFLOW = 'procedural';
