// English strings of the generation agent and prompt polish, spread into the English table (en.ts).
export const en_agent = {
  'agent.nav': 'Agent',
} as const;
