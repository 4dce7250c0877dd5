// Entry point: canonical locale redirect, session restore from cookie `T`,
// then the React tree over the one store.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { session } from './app/services';
import { startRouter } from './router/router';
import { captureUserInvite } from './account/userInvite';
import { installTracker } from './analytics/install';
import { appStore, Provider } from './state/jotai';
import './styles.css';

// Before the router: an invite link's code is kept and taken out of the URL.
captureUserInvite();
startRouter(appStore);
void session.restore();
installTracker(appStore);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <Provider store={appStore}>
      <App />
    </Provider>
  </StrictMode>,
);
