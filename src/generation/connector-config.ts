/** The connectors' configuration from the platform's (COMFYUI_URL, OPENAI_*; docs/generation.md). */
import type { Config } from '../config.ts';
import type { ConnectorConfig } from './connectors/index.ts';

export function connectorConfigOf(config: Config): ConnectorConfig {
  return {
    ...(config.COMFYUI_URL ? { comfyuiUrl: config.COMFYUI_URL } : {}),
    ...(config.OPENAI_BASE_URL ? { openaiBaseUrl: config.OPENAI_BASE_URL } : {}),
    ...(config.OPENAI_API_KEY ? { openaiApiKey: config.OPENAI_API_KEY } : {}),
    ...(config.OPENAI_IMAGE_MODEL ? { openaiModel: config.OPENAI_IMAGE_MODEL } : {}),
  };
}
