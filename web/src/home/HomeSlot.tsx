// A named place of the home page (`home-top`, `generator-side`...): its
// banners as a carousel and its modules with their elements, as the server
// composes them for this viewer (audience, language, schedule). Theme
// activities in a module show as the activities page's tiles, linking to
// each activity's page.
import { useEffect, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { useNow } from '../activities/actions';
import { ActivityTile } from '../activities/parts';
import type { ActivitySummary } from '../activities/types';
import '../activities/activities.css';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { homeApi } from './api';
import { nextSlide } from './carousel';
import type { BannerView, ElementView, ModuleView, SlotView } from './types';
import './home.css';

/** Slides change every this many ms unless the pointer is over the carousel. */
const SLIDE_MS = 6_000;

function BannerLink({ link, children }: { link: string; children: React.ReactNode }) {
  if (link === '') return <>{children}</>;
  if (link.startsWith('/')) return <Link to={link}>{children}</Link>;
  return (
    <a href={link} rel="noopener noreferrer">
      {children}
    </a>
  );
}

export function BannerCarousel({ banners }: { banners: BannerView[] }) {
  const t = useT();
  const [i, setI] = useState(0);
  const [paused, setPaused] = useState(false);
  const n = banners.length;
  useEffect(() => {
    if (n < 2 || paused) return;
    const timer = setInterval(() => setI((x) => nextSlide(x, n, 1)), SLIDE_MS);
    return () => clearInterval(timer);
  }, [n, paused]);
  const current = banners[Math.min(i, n - 1)];
  if (current === undefined) return null;
  return (
    <section
      className="home-carousel"
      aria-roledescription="carousel"
      aria-label={t('home.banners')}
      data-testid="home-banners"
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
    >
      <BannerLink link={current.link}>
        <figure className="home-carousel__slide" data-testid="home-banner" data-id={current.id}>
          <img src={current.image} alt={current.title} />
          {current.title !== '' && <figcaption>{current.title}</figcaption>}
        </figure>
      </BannerLink>
      {n > 1 && (
        <div className="home-carousel__nav">
          <button type="button" className="button button--link" aria-label={t('home.prev')} onClick={() => setI((x) => nextSlide(x, n, -1))}>
            ‹
          </button>
          {banners.map((b, k) => (
            <button
              key={b.id}
              type="button"
              className="home-carousel__dot"
              aria-label={b.title || String(k + 1)}
              aria-current={k === i ? 'true' : undefined}
              onClick={() => setI(k)}
            />
          ))}
          <button type="button" className="button button--link" aria-label={t('home.next')} onClick={() => setI((x) => nextSlide(x, n, 1))}>
            ›
          </button>
        </div>
      )}
    </section>
  );
}

function elementTitle(e: ElementView): string {
  const c = e.card;
  const v = c.title ?? c.name;
  return typeof v === 'string' && v !== '' ? v : e.id;
}

function elementImage(e: ElementView): string | null {
  const c = e.card as Record<string, unknown>;
  for (const k of ['cover_url', 'cover', 'avatar', 'image', 'url']) {
    const v = c[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return null;
}

function elementPath(locale: string, e: ElementView): string {
  if (e.kind === 'character') return `/${locale}/character/${encodeURIComponent(e.id)}`;
  if (e.kind === 'model') return `/${locale}/model/${encodeURIComponent(e.id)}`;
  return `/${locale}/work/${encodeURIComponent(e.id)}`;
}

/** An activity element's card as the activities list's summary (null when it is not one). */
export function activityOf(e: ElementView): ActivitySummary | null {
  if (e.kind !== 'activity') return null;
  const c = e.card as Partial<ActivitySummary>;
  return typeof c.id === 'string' && typeof c.title === 'string' && Array.isArray(c.periods) ? (c as ActivitySummary) : null;
}

function ActivityElements({ activities }: { activities: ActivitySummary[] }) {
  // Statuses and countdowns turn over with this clock.
  const now = useNow(15_000);
  return (
    <ul className="home-module__list home-module__list--activities">
      {activities.map((a) => (
        <li key={`activity:${a.id}`}>
          <ActivityTile activity={a} now={now} />
        </li>
      ))}
    </ul>
  );
}

export function ModuleRow({ module, elements }: { module: ModuleView; elements: ElementView[] }) {
  const locale = useAtomValue(localeAtom);
  const activities = elements.map(activityOf).filter((a): a is ActivitySummary => a !== null);
  const others = elements.filter((e) => e.kind !== 'activity');
  return (
    <section className="home-module" data-testid="home-module" data-id={module.id}>
      <h2 className="home-module__title">{module.title}</h2>
      {activities.length > 0 && <ActivityElements activities={activities} />}
      {others.length > 0 && <ul className="home-module__list">
        {others.map((e) => {
          const img = elementImage(e);
          return (
            <li key={`${e.kind}:${e.id}`}>
              <Link to={elementPath(locale, e)}>
                {img !== null && <img src={img} alt="" loading="lazy" />}
                <span>{elementTitle(e)}</span>
              </Link>
            </li>
          );
        })}
      </ul>}
    </section>
  );
}

function LiveModule({ module, lang }: { module: ModuleView; lang: string }) {
  const [elements, setElements] = useState<ElementView[]>([]);
  useEffect(() => {
    let live = true;
    homeApi
      .moduleElements(module.id, lang)
      .then((c) => live && setElements(c.elements))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [module.id, lang]);
  if (elements.length === 0) return null;
  return <ModuleRow module={module} elements={elements} />;
}

/** Renders slot `name` for the current viewer (nothing while empty). */
export function HomeSlot({ name }: { name: string }) {
  const lang = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const [slot, setSlot] = useState<SlotView | null>(null);
  useEffect(() => {
    let live = true;
    homeApi
      .slots(lang, name)
      .then((r) => live && setSlot(r.slots.find((s) => s.name === name) ?? null))
      .catch(() => live && setSlot(null));
    return () => {
      live = false;
    };
  }, [lang, name, loggedIn]);
  if (slot === null) return null;
  return (
    <div className="home-slot" data-testid={`home-slot-${name}`}>
      <BannerCarousel banners={slot.banners} />
      {slot.modules.map((m) => (
        <LiveModule key={m.id} module={m} lang={lang} />
      ))}
    </div>
  );
}
