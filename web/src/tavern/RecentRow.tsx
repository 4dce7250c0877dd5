import { useId, useState } from 'react';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import { Avatar } from './Avatar';
import type { RecentCard } from './model';
import { tavernPath } from './route';
import { useErrorText } from './useErrorText';
import { useLoaded } from './useLoaded';

/** How many recently chatted characters the row shows. */
const RECENT_LIMIT = 12;

/** The logged-in user's recently chatted characters (character/latest): one tap back into the chat, × takes one off the row. */
export function RecentRow() {
  const t = useT();
  const titleId = useId();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const recent = useLoaded(() => tavernApi.latest(RECENT_LIMIT), [], []);
  const { value: items, setValue: setItems } = recent;
  // The last × that failed; a row that could not be read has nothing to remove, so this only shows after a good read.
  const [removeError, setRemoveError] = useState<string | null>(null);
  const error = removeError ?? (recent.failed ? errorText(recent.error) : null);

  async function remove(card: RecentCard) {
    setRemoveError(null);
    setItems((list) => list.filter((c) => c.id !== card.id));
    try {
      await tavernApi.removeRecent(card.id);
    } catch (e) {
      setItems((list) => (list.some((c) => c.id === card.id) ? list : [card, ...list]));
      setRemoveError(errorText(e));
    }
  }

  if (items.length === 0 && error === null) return null;
  return (
    <section className="recent" aria-labelledby={titleId} data-testid="recent-row">
      <h2 id={titleId} className="recent__title">
        {t('tavern.recent.title')}
      </h2>
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
      <ul className="recent__list">
        {items.map((c) => (
          <li key={c.id} className="recent__item" data-testid="recent-item">
            <Link to={localePath(locale, tavernPath({ view: 'chat', characterId: c.id, sessionId: null }))} className="recent__link" title={t('tavern.recent.open', { name: c.name })}>
              <Avatar src={c.avatar} name={c.name} size="sm" />
              <span className="recent__name">{c.name}</span>
            </Link>
            <button type="button" className="icon-button recent__remove" aria-label={t('tavern.recent.remove', { name: c.name })} title={t('tavern.recent.remove', { name: c.name })} onClick={() => void remove(c)}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
