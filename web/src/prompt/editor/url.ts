// The prompt editor's `prompts` query parameter (spec 1 §2): an initial list of
// prompts passed as JSON, read once when the editor opens and then removed from
// the URL so a reload or a shared link does not import it again. A wrong value
// is only logged.

/** The query parameter's name (spec 1 §2). */
export const PROMPTS_PARAM = 'prompts';

/** What `readPromptsParam` found, and the URL to put back in the address bar. */
export interface PromptsParam {
  /** The prompts, or `null` when the parameter is absent or not a usable JSON array. */
  prompts: string[] | null;
  /** A copy of the URL without the `prompts` parameter (other parameters and the hash kept). */
  cleanedUrl: URL;
}

/**
 * Reads the `prompts` parameter. Accepted values, after JSON decoding:
 * - an array whose elements are strings (`["1girl, smile", "cat"]`), or objects
 *   with a string `text` field (`[{"text": "cat"}]`, the shape of a prompt word
 *   or a history item), mixed freely; other elements are skipped with a warning;
 * - a single string, taken as a one-element list (a link that forgot the array).
 *
 * Anything else (malformed JSON, a number, an object, `null`) gives
 * `prompts: null` and one `console.warn`; the parameter is removed from the URL
 * in every case, because it is read once. Never throws. The input URL is not
 * modified.
 */
export function readPromptsParam(url: URL): PromptsParam {
  const cleanedUrl = new URL(url.href);
  const raw = cleanedUrl.searchParams.get(PROMPTS_PARAM);
  if (raw === null) return { prompts: null, cleanedUrl };
  cleanedUrl.searchParams.delete(PROMPTS_PARAM);

  let decoded: unknown;
  try {
    decoded = JSON.parse(raw);
  } catch (error) {
    console.warn(`prompt editor: ignoring the "${PROMPTS_PARAM}" parameter, it is not JSON`, error);
    return { prompts: null, cleanedUrl };
  }
  if (typeof decoded === 'string') return { prompts: [decoded], cleanedUrl };
  if (!Array.isArray(decoded)) {
    console.warn(`prompt editor: ignoring the "${PROMPTS_PARAM}" parameter, it is not a JSON array`, decoded);
    return { prompts: null, cleanedUrl };
  }

  const prompts: string[] = [];
  let skipped = 0;
  for (const item of decoded as unknown[]) {
    const text = promptText(item);
    if (text === null) skipped += 1;
    else prompts.push(text);
  }
  if (skipped > 0) {
    console.warn(`prompt editor: skipped ${skipped} element(s) of "${PROMPTS_PARAM}" that are neither a string nor {text: string}`);
  }
  return { prompts, cleanedUrl };
}

function promptText(item: unknown): string | null {
  if (typeof item === 'string') return item;
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    const text: unknown = (item as { text?: unknown }).text;
    if (typeof text === 'string') return text;
  }
  return null;
}
