// Atoms of the generation agent and its hand-off to the generator.
import { atom } from '../state/jotai';
import type { ErrorMessage } from '../i18n/messages';
import type { AgentConfig, AgentConv, PresetTemplate } from './api';
import type { ChatMessage } from './chat';

/**
 * A prompt chosen in the agent ("Use in generator"), waiting for the
 * generator's prompt field to take it; the field's tools clear it once applied.
 */
export const pendingGeneratorPromptAtom = atom<string | null>(null);

/** The caller's agent conversations, newest first; null until loaded. */
export const agentConvsAtom = atom<readonly AgentConv[] | null>(null);

/** The open conversation; null for a new one not created yet. */
export const agentConvIdAtom = atom<string | null>(null);

/** Messages of the open conversation, oldest first. */
export const agentMessagesAtom = atom<readonly ChatMessage[]>([]);

/** A reply is streaming (or being retried). */
export const agentSendingAtom = atom(false);

/** The last failure, shown above the composer. */
export const agentProblemAtom = atom<ErrorMessage | null>(null);

/** The retry under way (1-based), or 0. */
export const agentRetryAtom = atom(0);

/** The agent's config (retry policy and the model that answers). */
export const agentConfigAtom = atom<AgentConfig | null>(null);

/** A history load is under way. */
export const agentHistoryLoadingAtom = atom(false);

/** Starter templates (`/prompt/preset-template`); null until loaded. */
export const agentPresetsAtom = atom<readonly PresetTemplate[] | null>(null);
