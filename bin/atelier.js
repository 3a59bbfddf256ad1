#!/usr/bin/env node
// Thin launcher so `npx atelier <command>` works without a build step: tsx runs the TypeScript CLI.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli.ts');
