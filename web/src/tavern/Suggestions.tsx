import { useState } from 'react';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { useErrorText } from './useErrorText';

/** Reply ideas from reply/recommend, as chips that fill the message box (keyed by the last reply: a new reply clears them). */
export function Suggestions({ sessionId, disabled, onPick }: { sessionId: string; disabled: boolean; onPick: (text: string) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const [items, setItems] = useState<string[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function load() {
    setLoading(true);
    setError(null);
    try {
      setItems(await tavernApi.suggestions(sessionId));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setLoading(false);
    }
  }

  return (
    <div className="suggestions" role="group" aria-label={t('tavern.chat.suggestions')}>
      {items.map((s) => (
        <button key={s} type="button" className="suggestions__chip" onClick={() => onPick(s)} data-testid="suggestion">
          {s}
        </button>
      ))}
      {items.length === 0 && (
        <button type="button" className="suggestions__chip suggestions__chip--ask" onClick={() => void load()} disabled={disabled || loading}>
          ✦ {loading ? t('tavern.loading') : t('tavern.chat.suggest')}
        </button>
      )}
      {error !== null && (
        <span className="tavern__error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
