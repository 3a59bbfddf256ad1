/** The connectors' configuration from the platform's (COMFYUI_URL, OPENAI_*; docs/generation.md). */
import type { Config } from '../config.ts';
import type { ConnectorConfig } from './connectors/index.ts';

/** What the connectors read from the configuration. */
export type ConnectorOptions = Pick<Config, 'COMFYUI_URL' | 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'OPENAI_IMAGE_MODEL'>;

export function connectorConfigOf(config: ConnectorOptions): ConnectorConfig {
  return {
    ...(config.COMFYUI_URL ? { comfyuiUrl: config.COMFYUI_URL } : {}),
    ...(config.OPENAI_BASE_URL ? { openaiBaseUrl: config.OPENAI_BASE_URL } : {}),
    ...(config.OPENAI_API_KEY ? { openaiApiKey: config.OPENAI_API_KEY } : {}),
    ...(config.OPENAI_IMAGE_MODEL ? { openaiModel: config.OPENAI_IMAGE_MODEL } : {}),
  };
}
