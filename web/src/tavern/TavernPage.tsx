import { loggedInAtom } from '../account/atoms';
import { routeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { BrowseView } from './BrowseView';
import { CharacterDetail } from './CharacterDetail';
import { CharacterForm } from './CharacterForm';
import { ChatView } from './ChatView';
import { LoginFirst } from './LoginFirst';
import { MineView } from './MineView';
import { parseTavernPath } from './route';
import type { TavernRoute } from './route';
import { TavernNav } from './TavernNav';
import './tavern.css';

function View({ route, loggedIn }: { route: TavernRoute; loggedIn: boolean }) {
  switch (route.view) {
    case 'browse':
      return <BrowseView />;
    case 'detail':
      return <CharacterDetail key={route.id} id={route.id} />;
    case 'mine':
      return loggedIn ? <MineView /> : <LoginFirst />;
    case 'new':
      return loggedIn ? <CharacterForm key="new" id={null} /> : <LoginFirst />;
    case 'edit':
      return loggedIn ? <CharacterForm key={route.id} id={route.id} /> : <LoginFirst />;
    case 'chat':
      return loggedIn ? <ChatView key={route.characterId} characterId={route.characterId} sessionId={route.sessionId} /> : <LoginFirst />;
  }
}

/** `/{locale}/tavern/...`: the characters and their chats. */
export function TavernPage() {
  const route = parseTavernPath(useAtomValue(routeAtom).rest) ?? { view: 'browse' };
  const loggedIn = useAtomValue(loggedInAtom);
  return (
    <section className={`tavern tavern--${route.view}`} data-testid="tavern-page">
      {route.view !== 'chat' && <TavernNav current={route.view} />}
      <View route={route} loggedIn={loggedIn} />
    </section>
  );
}
