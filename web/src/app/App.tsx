import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { LoginDialog } from '../account/LoginDialog';
import { contentLanguage } from '../i18n/messages';
import { routeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { Header } from './Header';
import { GeneratorPage } from '../generator/GeneratorPage';
import { HomePage } from './HomePage';
import { NotFoundPage } from './NotFoundPage';
import { ToastView } from './ToastView';

/** The route table: the path after the locale -> the page. */
function page(rest: string): ReactNode {
  switch (rest) {
    case '/':
    case '':
      return <HomePage />;
    case '/create':
    case '/studio':
      return <GeneratorPage />;
    default:
      if (rest.startsWith('/create/')) return <GeneratorPage />;
      return <NotFoundPage />;
  }
}

export function App() {
  const route = useAtomValue(routeAtom);
  useEffect(() => {
    document.documentElement.lang = contentLanguage(route.locale);
  }, [route.locale]);
  return (
    <>
      <Header />
      <main className="main">{page(route.rest)}</main>
      <LoginDialog />
      <ToastView />
    </>
  );
}
