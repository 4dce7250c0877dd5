import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { ActivitiesPage } from '../activities/ActivitiesPage';
import { ActivityPage } from '../activities/ActivityPage';
import { parseActivitiesPath } from '../activities/route';
import { ForgotPage } from '../account/ForgotPage';
import { LoginDialog } from '../account/LoginDialog';
import { ResetPage } from '../account/ResetPage';
import { VerifyBanner } from '../account/VerifyBanner';
import { OidcCallbackPage } from '../account/OidcCallbackPage';
import { AgentPage } from '../agent/AgentPage';
import { ChannelsPage } from '../channels/ChannelsPage';
import { EditorPage } from '../editor/EditorPage';
import { isEditorPath } from '../editor/route';
import { isChannelsPath } from '../channels/route';
import { isTavernPath } from '../tavern/route';
import { TavernPage } from '../tavern/TavernPage';
import { ModelsPage } from '../models/ModelsPage';
import { parseModelsPath } from '../models/route';
import { ModerationPage } from '../moderation/ModerationPage';
import { parseModerationPath } from '../moderation/route';
import { OperatePage } from '../operate/OperatePage';
import { parseOperatePath } from '../operate/route';
import { SettingsPage } from '../settings/SettingsPage';
import { parseSettingsPath } from '../settings/route';
import { parseTimbrePath } from '../timbre/route';
import { TimbrePage } from '../timbre/TimbrePage';
import { contentLanguage } from '../i18n/messages';
import { PromptEditorPage } from '../prompt/ui';
import { LandingPage } from '../router/LandingPage';
import { MallBanner, MallOverlays } from '../mall/MallOverlays';
import { mallPage } from '../mall/pages';
import { parseGeneratorRoute } from '../router/routes';
import { routeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { Header } from './Header';
import { GeneratorPage } from '../generator/GeneratorPage';
import { ProfilePage } from '../profile/ProfilePage';
import { isOrnamentsPath } from '../ornaments/route';
import { ShopPage } from '../ornaments/ShopPage';
import { SearchPage } from '../search/SearchPage';
import { parseSquarePath } from '../square/route';
import { WorkPage } from '../works/WorkPage';
import { HomePage } from './HomePage';
import { NotFoundPage } from './NotFoundPage';
import { ToastView } from './ToastView';
import { AwardPopup } from '../checkin/AwardPopup';
import { VipPopAuto } from '../popups/VipPopAuto';
import { SurveyPopup } from '../surveys/SurveyPopup';
import { VisitorGuide } from '../popups/VisitorGuide';
import { FacePopup } from '../home/FacePopup';

/** The route table: the path after the locale -> the page. */
export function page(rest: string): ReactNode {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  switch (path) {
    case '/':
    case '':
      return <HomePage />;
    case '/landing':
      return <LandingPage />;
    case '/prompt-editor':
      return <PromptEditorPage />;
    case '/agent':
      return <AgentPage />;
    case '/forgot':
      return <ForgotPage />;
    case '/reset':
      return <ResetPage />;
    case '/oidc/callback':
      return <OidcCallbackPage />;
    default:
      // `/create/video/editor`: the video editor.
      if (isEditorPath(path)) return <EditorPage />;
      // `/create`, `/studio` and `/create/{generateType}` (a known type only).
      if (parseGeneratorRoute(path) !== null) return <GeneratorPage />;
      // `/channels` and `/channels/{id}`.
      if (isChannelsPath(path)) return <ChannelsPage />;
      // `/tavern` and `/tavern/...` (characters and their chats).
      if (isTavernPath(path)) return <TavernPage />;
      // `/timbre` and `/timbre/...` (voices).
      if (parseTimbrePath(path) !== null) return <TimbrePage />;
      // `/models` and `/models/...` (shared models, datasets, training, leaderboards).
      if (parseModelsPath(path) !== null) return <ModelsPage />;
      // `/ornaments`: the ornament shop.
      if (isOrnamentsPath(path)) return <ShopPage />;
      // `/moderation` and `/moderation/{tab}`: the moderators' console.
      {
        const tab = parseModerationPath(path);
        if (tab !== null) return <ModerationPage tab={tab} />;
      }
      // `/operate` and `/operate/{tab}`: the operators' console.
      {
        const tab = parseOperatePath(path);
        if (tab !== null) return <OperatePage tab={tab} />;
      }
      // `/activities`, `/activities/{id}` and the card links `/event-center/...`: theme activities.
      {
        const act = parseActivitiesPath(path);
        if (act !== null) return act.view === 'list' ? <ActivitiesPage /> : <ActivityPage key={act.id} id={act.id} period={act.period} />;
      }
      // `/settings` and `/settings/{tab}`: the account's settings.
      {
        const tab = parseSettingsPath(path);
        if (tab !== null) return <SettingsPage tab={tab} />;
      }
      return mallPage(path) ?? squarePage(path) ?? <NotFoundPage />;
  }
}

/** The square's pages: works, profiles and search (the home square is `/`). */
function squarePage(path: string): ReactNode | null {
  const route = parseSquarePath(path);
  if (route === null) return null;
  switch (route.view) {
    case 'work':
      return <WorkPage key={route.id} id={route.id} article={route.article} />;
    case 'profile':
      return <ProfilePage key={route.id} id={route.id} tab={route.tab} />;
    case 'search':
      return <SearchPage />;
  }
}

/** Pages that use the full width (the square's grids). */
export function isWidePage(rest: string): boolean {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === '/' || path === '') return true;
  const models = parseModelsPath(path);
  if (models !== null) return models.view === 'feed' || models.view === 'leaderboards' || models.view === 'datasets' || models.view === 'dataset';
  const route = parseSquarePath(path);
  return route !== null && route.view !== 'work';
}

export function App() {
  const route = useAtomValue(routeAtom);
  useEffect(() => {
    document.documentElement.lang = contentLanguage(route.locale);
  }, [route.locale]);
  return (
    <>
      <Header />
      <MallBanner />
      <VerifyBanner />
      <main className={isWidePage(route.rest) ? 'main main--wide' : 'main'}>{page(route.rest)}</main>
      <LoginDialog />
      <MallOverlays />
      <VipPopAuto />
      <SurveyPopup />
      <VisitorGuide />
      <AwardPopup />
      <FacePopup />
      <ToastView />
    </>
  );
}
