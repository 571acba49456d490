//! Certificates for a node with TLS on its CQL port ([`NodeConfig::tls`]): a certificate
//! authority, the node's certificate (issued for its IP address, as the driver checks the
//! address it connects to), a client certificate, and a second authority that signed nothing
//! the node trusts (for tests of a refused certificate). Generated once, as PEM files in
//! `<work_dir>/tls/`, and kept across restarts.

use std::fs;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

use crate::config::NodeConfig;
use crate::error::NodeError;

/// The PEM files of a node with [`NodeConfig::tls`], from [`NodeConfig::tls_files`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate authority that signed the node's and the client's certificates: what a
    /// client trusts (`CASSMODEL_TLS_CA`).
    pub ca: PathBuf,
    /// The client certificate the node accepts (`CASSMODEL_TLS_CERT`).
    pub client_cert: PathBuf,
    /// The client certificate's private key (`CASSMODEL_TLS_KEY`).
    pub client_key: PathBuf,
    /// A certificate authority that signed neither the node's certificate nor any the node
    /// trusts: a client trusting only it refuses the node.
    pub untrusted_ca: PathBuf,
    /// The node's private key followed by its certificate (Cassandra's PEM keystore).
    pub node_keystore: PathBuf,
    /// A client certificate signed by an authority the node does not trust: the node
    /// refuses a client presenting it.
    pub untrusted_client_cert: PathBuf,
    /// Its private key.
    pub untrusted_client_key: PathBuf,
}

impl TlsFiles {
    pub(crate) fn in_dir(dir: &Path) -> TlsFiles {
        TlsFiles {
            ca: dir.join("ca.pem"),
            client_cert: dir.join("client.pem"),
            client_key: dir.join("client-key.pem"),
            untrusted_ca: dir.join("untrusted-ca.pem"),
            node_keystore: dir.join("node-keystore.pem"),
            untrusted_client_cert: dir.join("untrusted-client.pem"),
            untrusted_client_key: dir.join("untrusted-client-key.pem"),
        }
    }

    /// Whether every file is there (the untrusted client's too).
    pub(crate) fn complete(&self) -> bool {
        self.all().iter().all(|p| p.is_file())
            && self.untrusted_client_cert.is_file()
            && self.untrusted_client_key.is_file()
    }

    fn all(&self) -> [&Path; 5] {
        [
            &self.ca,
            &self.client_cert,
            &self.client_key,
            &self.untrusted_ca,
            &self.node_keystore,
        ]
    }
}

/// Writes the node's certificates unless all of them are there already, and the untrusted
/// client certificate (its own authority, so that adding it leaves a node's keystore as it is).
pub(crate) fn ensure_certificates(cfg: &NodeConfig) -> Result<TlsFiles, NodeError> {
    let files = cfg.tls_files();
    if !files.all().iter().all(|p| p.is_file()) {
        write_certificates(cfg, &files)?;
    }
    if !(files.untrusted_client_cert.is_file() && files.untrusted_client_key.is_file()) {
        write_untrusted_client(&files)?;
    }
    Ok(files)
}

fn cert_error(e: rcgen::Error) -> NodeError {
    NodeError::Certificate(e.to_string())
}

/// A client certificate and key signed by an authority no node trusts.
fn write_untrusted_client(files: &TlsFiles) -> Result<(), NodeError> {
    let (_, authority) = authority("cassmodel untrusted client CA").map_err(cert_error)?;
    let (cert, key) = client("cassmodel untrusted client", &authority).map_err(cert_error)?;
    write_files([
        (&files.untrusted_client_cert, cert),
        (&files.untrusted_client_key, key),
    ])
}

/// A client certificate named `name` signed by `authority`, and its key (PEM).
fn client(
    name: &str,
    authority: &Issuer<'static, KeyPair>,
) -> Result<(String, String), rcgen::Error> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, name);
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let cert = params.signed_by(&key, authority)?;
    Ok((cert.pem(), key.serialize_pem()))
}

fn write_files<'a>(
    files: impl IntoIterator<Item = (&'a PathBuf, String)>,
) -> Result<(), NodeError> {
    for (path, text) in files {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)
                .map_err(|e| NodeError::io(format!("cannot create {}", dir.display()), e))?;
        }
        // Written whole, then renamed: a reader never sees half a file.
        let part = path.with_extension(format!("part{}", std::process::id()));
        fs::write(&part, text)
            .and_then(|()| fs::rename(&part, path))
            .map_err(|e| NodeError::io(format!("cannot write {}", path.display()), e))?;
    }
    Ok(())
}

/// The node's authority, its certificate and the trusted client's.
fn write_certificates(cfg: &NodeConfig, files: &TlsFiles) -> Result<(), NodeError> {
    let (ca_pem, ca) = authority("cassmodel test CA").map_err(cert_error)?;
    let (untrusted_pem, _) = authority("cassmodel untrusted CA").map_err(cert_error)?;

    let node_key = KeyPair::generate().map_err(cert_error)?;
    let mut node = CertificateParams::new(vec![cfg.host.to_string()]).map_err(cert_error)?;
    node.distinguished_name
        .push(DnType::CommonName, format!("cassmodel node {}", cfg.host));
    node.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let node_cert = node.signed_by(&node_key, &ca).map_err(cert_error)?;

    let (client_cert, client_key) = client("cassmodel test client", &ca).map_err(cert_error)?;

    write_files([
        (&files.ca, ca_pem),
        (&files.untrusted_ca, untrusted_pem),
        (&files.client_cert, client_cert),
        (&files.client_key, client_key),
        (
            &files.node_keystore,
            format!("{}{}", node_key.serialize_pem(), node_cert.pem()),
        ),
    ])
}

/// A self-signed certificate authority: its certificate (PEM) and the issuer that signs with
/// it.
fn authority(name: &str) -> Result<(String, Issuer<'static, KeyPair>), rcgen::Error> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let pem = params.self_signed(&key)?.pem();
    Ok((pem, Issuer::new(params, key)))
}

impl NodeConfig {
    /// Where the certificates of a node with [`tls`](Self::tls) are (`<work_dir>/tls/`): the
    /// authority a client trusts, the client certificate and key it presents.
    pub fn tls_files(&self) -> TlsFiles {
        TlsFiles::in_dir(&self.work_dir.join("tls"))
    }
}
