//! Ports and adapters: the Store (embedded redb or ScyllaDB), the Bus
//! (in-process broadcast), and typed configuration.
//!
//! Architecture Invariant: nothing here knows about HTTP, actix or the
//! WebSocket; the backend and the actors reach storage and fan-out only
//! through the traits defined here.

pub mod bus;
pub mod bus_redis;
pub mod config;
pub mod objects;
pub mod queue;
pub mod store;
#[cfg(feature = "test-support")]
pub mod testing;
