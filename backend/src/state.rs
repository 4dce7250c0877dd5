//! Shared application state handed to every handler.

use std::sync::Arc;

use actors::SessionDeps;
use infra::bus::DynBus;
use infra::config::Settings;
use infra::store::DynStore;

use crate::accounts::AccountService;
use crate::ratelimit::RateLimiter;

pub struct AppState {
    pub settings: Settings,
    pub store: DynStore,
    pub bus: DynBus,
    pub accounts: AccountService,
    pub sessions: Arc<SessionDeps>,
    /// Login and sign-up attempts per client address.
    pub login_limit: RateLimiter,
}
