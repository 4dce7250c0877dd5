// English strings of the tasks feature, spread into the English table (en.ts).
export const en_tasks = {} as const;
