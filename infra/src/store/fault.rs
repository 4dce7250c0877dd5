//! A fault switch for tests of what happens when the store is down: with the
//! `test-support` feature and `EASEL_TEST_STORE_FAULT_FILE` set,
//! [`with_fault_switch`] wraps the store so that every call fails with
//! [`StoreError::Unavailable`] while that file exists. Without the feature
//! (every release build) it hands the store back untouched, so production
//! cannot be switched off by a file.

use super::DynStore;

/// The environment variable naming the switch file.
pub const FAULT_FILE_ENV: &str = "EASEL_TEST_STORE_FAULT_FILE";

/// Wraps `store` in the fault switch when the feature is built and the
/// variable is set; otherwise answers `store` itself.
pub fn with_fault_switch(store: DynStore) -> DynStore {
    #[cfg(feature = "test-support")]
    {
        if let Some(path) = std::env::var_os(FAULT_FILE_ENV).filter(|p| !p.is_empty()) {
            tracing::warn!(file = ?path, "test store fault switch installed");
            return std::sync::Arc::new(switch::FaultSwitch {
                inner: store,
                flag: std::path::PathBuf::from(path),
            });
        }
    }
    store
}

#[cfg(feature = "test-support")]
mod switch {
    use std::path::PathBuf;

    use crate::store::{
        CasOutcome, DynStore, Key, RawPage, ScanRange, Store, StoreError, StoreResult, TableDef,
    };

    pub(super) struct FaultSwitch {
        pub(super) inner: DynStore,
        pub(super) flag: PathBuf,
    }

    impl FaultSwitch {
        fn up(&self) -> StoreResult<()> {
            if self.flag.exists() {
                Err(StoreError::Unavailable(format!(
                    "fault switch {} is on",
                    self.flag.display()
                )))
            } else {
                Ok(())
            }
        }
    }

    #[async_trait::async_trait]
    impl Store for FaultSwitch {
        async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
            self.up()?;
            self.inner.get(t, pk, ck).await
        }
        async fn get_many(
            &self,
            t: &TableDef,
            keys: &[(Key, Key)],
        ) -> StoreResult<Vec<Option<Vec<u8>>>> {
            self.up()?;
            self.inner.get_many(t, keys).await
        }
        async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
            self.up()?;
            self.inner.put(t, pk, ck, value).await
        }
        async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()> {
            self.up()?;
            self.inner.delete(t, pk, ck).await
        }
        async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
            self.up()?;
            self.inner.delete_partition(t, pk).await
        }
        async fn scan(&self, t: &TableDef, pk: &Key, range: &ScanRange) -> StoreResult<RawPage> {
            self.up()?;
            self.inner.scan(t, pk, range).await
        }
        async fn scan_table(
            &self,
            t: &TableDef,
            after: Option<(&Key, &Key)>,
            limit: u32,
        ) -> StoreResult<Vec<crate::store::TableRow>> {
            self.up()?;
            self.inner.scan_table(t, after, limit).await
        }
        async fn cas(
            &self,
            t: &TableDef,
            pk: &Key,
            ck: &Key,
            expected: Option<&[u8]>,
            new: Option<Vec<u8>>,
        ) -> StoreResult<CasOutcome> {
            self.up()?;
            self.inner.cas(t, pk, ck, expected, new).await
        }
        async fn counter_add(
            &self,
            t: &TableDef,
            pk: &Key,
            ck: &Key,
            delta: i64,
        ) -> StoreResult<()> {
            self.up()?;
            self.inner.counter_add(t, pk, ck, delta).await
        }
        async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64> {
            self.up()?;
            self.inner.counter_get(t, pk, ck).await
        }
        fn backend_name(&self) -> &'static str {
            self.inner.backend_name()
        }
        fn write_stats(&self) -> Option<crate::store::WriteStats> {
            self.inner.write_stats()
        }
    }
}
