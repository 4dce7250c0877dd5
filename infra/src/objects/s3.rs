//! Objects in S3 or an S3-compatible service (MinIO, Garage, Ceph, ...)
//! through the `object_store` crate. The content type travels as the
//! object's `Content-Type` attribute, so the service returns it on GET.
//! Built only with the infra cargo feature `s3`.

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path;
use object_store::{
    Attribute, AttributeValue, Attributes, GetOptions, ObjectStore, ObjectStoreExt,
    PutMultipartOptions, PutOptions, PutPayload,
};

use super::{
    check_content_type, ObjectError, ObjectKey, ObjectMeta, ObjectResult, Objects, StoredObject,
};

/// Returned when the service gave no content type back.
const DEFAULT_CONTENT_TYPE: &str = "application/octet-stream";

pub struct S3Objects {
    store: AmazonS3,
}

fn unavailable(e: object_store::Error) -> ObjectError {
    ObjectError::Unavailable(e.to_string())
}

fn path(key: &ObjectKey) -> ObjectResult<Path> {
    Path::parse(key.as_str()).map_err(|e| ObjectError::InvalidKey(e.to_string()))
}

impl S3Objects {
    /// `endpoint` is the service URL for S3-compatible services (path-style
    /// requests), None for AWS itself; `allow_http` permits a plain-HTTP endpoint.
    pub fn new(
        bucket: &str,
        endpoint: Option<String>,
        region: &str,
        access_key: &str,
        secret_key: &str,
        allow_http: bool,
    ) -> ObjectResult<S3Objects> {
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(bucket)
            .with_region(region)
            .with_access_key_id(access_key)
            .with_secret_access_key(secret_key)
            .with_allow_http(allow_http)
            // Fail within seconds rather than minutes when the service is
            // down: callers (uploads, workers) retry on their own terms.
            .with_retry(object_store::RetryConfig {
                max_retries: 3,
                retry_timeout: std::time::Duration::from_secs(15),
                ..Default::default()
            });
        if let Some(endpoint) = endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_virtual_hosted_style_request(false);
        }
        let store = builder.build().map_err(unavailable)?;
        Ok(S3Objects { store })
    }
}

#[async_trait::async_trait]
impl Objects for S3Objects {
    async fn put(&self, key: &ObjectKey, bytes: Vec<u8>, content_type: &str) -> ObjectResult<()> {
        check_content_type(content_type)?;
        let mut attributes = Attributes::new();
        attributes.insert(
            Attribute::ContentType,
            AttributeValue::from(content_type.to_owned()),
        );
        let opts = PutOptions {
            attributes,
            ..PutOptions::default()
        };
        self.store
            .put_opts(&path(key)?, PutPayload::from(bytes), opts)
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn get(&self, key: &ObjectKey) -> ObjectResult<Option<StoredObject>> {
        let got = match self.store.get(&path(key)?).await {
            Ok(g) => g,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(unavailable(e)),
        };
        let content_type = got
            .attributes
            .get(&Attribute::ContentType)
            .map(|v| v.as_ref().to_owned())
            .unwrap_or_else(|| DEFAULT_CONTENT_TYPE.to_owned());
        let bytes = got.bytes().await.map_err(unavailable)?;
        Ok(Some(StoredObject {
            bytes: bytes.to_vec(),
            content_type,
        }))
    }

    async fn exists(&self, key: &ObjectKey) -> ObjectResult<bool> {
        match self.store.head(&path(key)?).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn delete(&self, key: &ObjectKey) -> ObjectResult<()> {
        match self.store.delete(&path(key)?).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn head(&self, key: &ObjectKey) -> ObjectResult<Option<ObjectMeta>> {
        let opts = GetOptions {
            head: true,
            ..GetOptions::default()
        };
        let got = match self.store.get_opts(&path(key)?, opts).await {
            Ok(g) => g,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(unavailable(e)),
        };
        Ok(Some(ObjectMeta {
            size: got.meta.size,
            content_type: got
                .attributes
                .get(&Attribute::ContentType)
                .map(|v| v.as_ref().to_owned())
                .unwrap_or_else(|| DEFAULT_CONTENT_TYPE.to_owned()),
        }))
    }

    async fn get_range(
        &self,
        key: &ObjectKey,
        offset: u64,
        len: u64,
    ) -> ObjectResult<Option<Vec<u8>>> {
        let Some(meta) = self.head(key).await? else {
            return Ok(None);
        };
        let start = offset.min(meta.size);
        let end = offset.saturating_add(len).min(meta.size);
        if end <= start {
            return Ok(Some(Vec::new()));
        }
        match self.store.get_range(&path(key)?, start..end).await {
            Ok(b) => Ok(Some(b.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn concat(
        &self,
        parts: &[ObjectKey],
        key: &ObjectKey,
        content_type: &str,
    ) -> ObjectResult<u64> {
        check_content_type(content_type)?;
        let mut attributes = Attributes::new();
        attributes.insert(
            Attribute::ContentType,
            AttributeValue::from(content_type.to_owned()),
        );
        let opts = PutMultipartOptions {
            attributes,
            ..PutMultipartOptions::default()
        };
        let mut upload = self
            .store
            .put_multipart_opts(&path(key)?, opts)
            .await
            .map_err(unavailable)?;
        let mut total = 0u64;
        for p in parts {
            // One part in memory at a time (S3's parts must be 5 MiB or
            // more but the last: uploads use 20 MiB chunks).
            let got = match self.get(p).await {
                Ok(Some(o)) => o,
                Ok(None) => {
                    let _ = upload.abort().await;
                    return Err(ObjectError::Unavailable(format!(
                        "part {p} of {key} is missing"
                    )));
                }
                Err(e) => {
                    let _ = upload.abort().await;
                    return Err(e);
                }
            };
            total += got.bytes.len() as u64;
            if let Err(e) = upload.put_part(PutPayload::from(got.bytes)).await {
                let _ = upload.abort().await;
                return Err(unavailable(e));
            }
        }
        upload.complete().await.map_err(unavailable)?;
        Ok(total)
    }

    fn backend_name(&self) -> &'static str {
        "s3"
    }
}
