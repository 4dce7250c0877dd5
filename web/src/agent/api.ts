// The generation agent's REST calls (spec 3 §7 "Gen-agent"; shapes in the
// issue-6 plan) through the one API client.
import type { ApiClient } from '../api/client';

export interface AgentConv {
  conv_id: string;
  title: string;
  create_at: number;
  update_at: number;
}

export interface HistoryItem {
  msg_id: string;
  parent_msg_id: string;
  role: string;
  content: { parts: unknown[] } | null;
  content_type: string;
  image_url: string | null;
  create_at: number;
}

export interface PresetTemplate {
  id: string;
  title: string;
  prompt: string;
}

export interface AgentConfig {
  retry_delay_ms: number;
  max_retries: number;
  model: { name: string; label: string; neural: boolean } | null;
}

export function agentApi(api: ApiClient) {
  return {
    convs: () => api.post<{ items: AgentConv[] }>('/api/v1/task/gen-agent/convs', {}).then((d) => d.items),
    create: (title?: string) =>
      api.post<{ conv_id: string }>('/api/v1/task/gen-agent/conv/create', title ? { title } : {}).then((d) => d.conv_id),
    history: (convId: string) =>
      api.post<{ items: HistoryItem[] }>('/api/v1/task/gen-agent/conv/history', { conv_id: convId }).then((d) => d.items),
    presets: () => api.post<{ items: PresetTemplate[] }>('/api/v1/task/gen-agent/prompt/preset-template', {}).then((d) => d.items),
    config: () => api.post<AgentConfig>('/api/v1/task/gen-agent/config', {}),
  };
}
