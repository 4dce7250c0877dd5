import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import type { CharacterCard } from './model';
import { tavernPath } from './route';
import { useQuickChat } from './useQuickChat';

/** One role card (spec 3 §9: 589 px high on wide screens). */
export function CharacterTile({ card }: { card: CharacterCard }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const initial = [...card.name.trim()][0]?.toUpperCase() ?? '?';
  const quick = useQuickChat();
  return (
    <li className="role-card" data-testid="character-card">
      <Link to={localePath(locale, tavernPath({ view: 'detail', id: card.id }))} className="role-card__link">
        <div className="role-card__picture">
          {card.avatar !== '' ? (
            <img src={card.avatar} alt="" loading="lazy" />
          ) : (
            <span className="role-card__initial" aria-hidden="true">
              {initial}
            </span>
          )}
          {card.published === false && <span className="role-card__draft">{t('tavern.card.draft')}</span>}
        </div>
        <div className="role-card__body">
          <h3 className="role-card__name">{card.name}</h3>
          {card.description !== '' && <p className="role-card__description">{card.description}</p>}
          {card.tags.length > 0 && (
            <ul className="role-card__tags" aria-label={t('tavern.form.tags')}>
              {card.tags.slice(0, 4).map((tag) => (
                <li key={tag}>{tag}</li>
              ))}
            </ul>
          )}
          <p className="role-card__meta">
            {card.owner.name !== '' && <span>{t('tavern.card.by', { name: card.owner.name })}</span>}
            <span>{t('tavern.card.chats', { count: card.chat_count })}</span>
          </p>
        </div>
      </Link>
      <button
        type="button"
        className="button button--primary button--small role-card__chat"
        aria-label={t('tavern.card.chatNowWith', { name: card.name })}
        disabled={quick.busy}
        onClick={() => void quick.start(card.id)}
      >
        {quick.busy ? t('tavern.card.opening') : t('tavern.card.chatNow')}
      </button>
      {quick.error !== null && (
        <p className="tavern__error role-card__error" role="alert">
          {quick.error}
        </p>
      )}
    </li>
  );
}

/** The role-card grid (spec 3 §2: one column on phones, two from 600 px, more as it widens). */
export function CharacterGrid({ cards, label }: { cards: readonly CharacterCard[]; label: string }) {
  return (
    <ul className="role-grid" aria-label={label}>
      {cards.map((c) => (
        <CharacterTile key={c.id} card={c} />
      ))}
    </ul>
  );
}
