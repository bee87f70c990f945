//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, with the conformance
//! rmcp's own line transport leaves out (it ignores unparsable input and answers a malformed
//! request without its `id`). Every line the client sends gets what JSON-RPC 2.0 requires:
//! - bytes that are not JSON: `-32700` (parse error), `id: null`;
//! - JSON that is not a request (a batch, a scalar, an `id` that is neither a number nor a
//!   string): `-32600` (invalid request), `id: null`;
//! - a request whose id is readable but whose shape is not a request: `-32600` with that id;
//!   a known method whose params do not fit it: `-32602` (invalid params) with that id;
//! - a malformed notification: nothing (notifications are never answered).
//!
//! Every error response carries `id` (`null` when it could not be read), as JSON-RPC 2.0
//! requires. The server's own messages pass through unchanged.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// JSON-RPC 2.0's error codes for input that is not a request.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// The client → server methods of MCP: a request for one of these whose params do not fit
/// is answered `-32602`, not "method not found".
pub(crate) const CLIENT_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
];

/// What one line from the client is.
#[derive(Debug)]
enum Incoming {
    /// A message for the server.
    Message(Box<ClientJsonRpcMessage>),
    /// An error response the transport sends itself: its line.
    Refused(Vec<u8>),
    /// Nothing to do (a blank line, a malformed notification).
    Skip,
}

/// Told of each message from the client as it is read, before rmcp handles it (which may be
/// in a task of its own, after later messages): what must happen in the order the client
/// sent things happens here.
pub(crate) type Observer = Box<dyn Fn(&ClientJsonRpcMessage) + Send>;

/// The server's side of stdio: lines in, lines out.
pub(crate) struct Lines<R, W> {
    reader: BufReader<R>,
    line: Vec<u8>,
    writer: Arc<Mutex<Option<W>>>,
    observer: Option<Observer>,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub(crate) fn new(read: R, write: W, observer: Option<Observer>) -> Self {
        Lines {
            reader: BufReader::new(read),
            line: Vec::new(),
            writer: Arc::new(Mutex::new(Some(write))),
            observer,
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(
    writer: &Mutex<Option<W>>,
    mut bytes: Vec<u8>,
) -> std::io::Result<()> {
    bytes.push(b'\n');
    let mut guard = writer.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    w.write_all(&bytes).await?;
    w.flush().await
}

/// A server message's bytes: an error whose request id is unknown says `"id":null`.
fn encode(item: &ServerJsonRpcMessage) -> Result<Vec<u8>, serde_json::Error> {
    match item {
        JsonRpcMessage::Error(e) if e.id.is_none() => {
            Ok(error_line(&Value::Null, &serde_json::to_value(&e.error)?))
        }
        _ => serde_json::to_vec(item),
    }
}

/// An error response in JSON-RPC's member order: jsonrpc, id, error.
fn error_line(id: &Value, error: &Value) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#).into_bytes()
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        async move {
            let bytes = encode(&item).map_err(std::io::Error::other)?;
            write_line(&writer, bytes).await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            // Cancel-safe: a read cut short by the service loop leaves its bytes in
            // `self.line`, and the next call goes on with the same line.
            match self.reader.read_until(b'\n', &mut self.line).await {
                Ok(0) if self.line.is_empty() => return None,
                Ok(_) => {}
                Err(_) => return None,
            }
            let at_eof = !self.line.ends_with(b"\n");
            let incoming = classify(&self.line);
            self.line.clear();
            match incoming {
                Incoming::Message(m) => {
                    if let Some(observe) = &self.observer {
                        observe(&m);
                    }
                    return Some(*m);
                }
                Incoming::Refused(bytes) => {
                    // Written by a task of its own: rmcp's service loop drops this future
                    // whenever another of its events comes first, and a refusal waiting for
                    // the writer (a response still being flushed) would be dropped with it —
                    // the client waiting for an answer that never comes.
                    let writer = Arc::clone(&self.writer);
                    let write = tokio::spawn(async move { write_line(&writer, bytes).await });
                    if !matches!(write.await, Ok(Ok(()))) {
                        return None;
                    }
                }
                Incoming::Skip => {}
            }
            if at_eof {
                return None;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut guard = self.writer.lock().await;
        if let Some(mut w) = guard.take() {
            let _ = w.flush().await;
        }
        Ok(())
    }
}

fn refusal(id: Value, code: i64, message: &str) -> Incoming {
    Incoming::Refused(error_line(&id, &json!({"code": code, "message": message})))
}

/// What a line is, and what JSON-RPC says to answer when it is not a message.
fn classify(raw: &[u8]) -> Incoming {
    let mut line = raw.strip_suffix(b"\n").unwrap_or(raw);
    line = line.strip_suffix(b"\r").unwrap_or(line);
    line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(_) => return refusal(Value::Null, PARSE_ERROR, "Parse error: not JSON"),
    };
    let Value::Object(object) = &value else {
        let why = if value.is_array() {
            "Invalid request: batches are not supported"
        } else {
            "Invalid request: not a JSON-RPC object"
        };
        return refusal(Value::Null, INVALID_REQUEST, why);
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n.clone())),
        Some(_) => {
            return refusal(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: id must be a string or an integer",
            )
        }
    };
    let parsed = serde_json::from_value::<ClientJsonRpcMessage>(value.clone());
    match (parsed, id) {
        (Ok(message), _) => Incoming::Message(Box::new(message)),
        // A notification, or a response the server cannot match: never answered.
        (Err(_), None) => Incoming::Skip,
        (Err(_), Some(id)) => {
            let method = object.get("method").and_then(Value::as_str);
            let is_response = object.contains_key("result") || object.contains_key("error");
            match method {
                _ if object.get("jsonrpc") != Some(&json!("2.0")) => refusal(
                    id,
                    INVALID_REQUEST,
                    "Invalid request: jsonrpc must be \"2.0\"",
                ),
                Some(m) if CLIENT_METHODS.contains(&m) => {
                    refusal(id, INVALID_PARAMS, &format!("Invalid params for {m}"))
                }
                None if is_response => Incoming::Skip,
                _ => refusal(id, INVALID_REQUEST, "Invalid request"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn refused(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Incoming::Refused(bytes) => {
                let s = String::from_utf8(bytes).unwrap();
                assert!(s.starts_with(r#"{"jsonrpc":"2.0","id":"#), "{s}");
                serde_json::from_str(&s).unwrap()
            }
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn each_malformed_line_gets_the_error_json_rpc_names() {
        let v = refused("{this is not json");
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], PARSE_ERROR);
        assert!(v.as_object().unwrap().contains_key("id"));

        for line in [
            "[1]",
            "[]",
            "5",
            "\"x\"",
            r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
        ] {
            let v = refused(line);
            assert_eq!(v["id"], Value::Null, "{line}");
            assert_eq!(v["error"]["code"], INVALID_REQUEST, "{line}");
        }

        let v = refused(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#);
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone()),
            (json!(7), json!(INVALID_PARAMS))
        );
        let v = refused(r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#);
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone()),
            (json!("a"), json!(INVALID_REQUEST))
        );
        let v = refused(r#"{"jsonrpc":"2.0","id":3}"#);
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone()),
            (json!(3), json!(INVALID_REQUEST))
        );
    }

    #[test]
    fn good_lines_and_notifications_pass_or_are_skipped() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
        assert!(matches!(classify(ok.as_bytes()), Incoming::Message(_)));
        let crlf = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n";
        assert!(matches!(classify(crlf.as_bytes()), Incoming::Message(_)));
        for skip in [
            "",
            "  \n",
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#,
        ] {
            assert!(
                matches!(classify(skip.as_bytes()), Incoming::Skip),
                "{skip}"
            );
        }
    }

    #[tokio::test]
    async fn a_refusal_survives_the_service_loop_dropping_the_read() {
        // A response is being written (the writer is held) when a malformed line arrives;
        // rmcp's loop then takes another event and drops the read that owes the refusal.
        let (client, server) = tokio::io::duplex(4096);
        let (mut reader, mut writer) = tokio::io::split(client);
        let (read, write) = tokio::io::split(server);
        let mut lines = Lines::new(read, write, None);
        let held = Arc::clone(&lines.writer);
        let guard = held.lock().await;
        writer.write_all(b"{this is not json\n").await.unwrap();
        let cut = tokio::time::timeout(Duration::from_millis(200), lines.receive()).await;
        assert!(cut.is_err(), "the read waits for the writer");
        drop(guard);
        let mut got = Vec::new();
        let mut byte = [0u8; 1];
        tokio::time::timeout(Duration::from_secs(5), async {
            while !got.ends_with(b"\n") {
                use tokio::io::AsyncReadExt;
                reader.read_exact(&mut byte).await.unwrap();
                got.push(byte[0]);
            }
        })
        .await
        .expect("the refusal is written after the read was dropped");
        let v: Value = serde_json::from_slice(&got).unwrap();
        assert_eq!(v["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn an_error_without_an_id_says_id_null() {
        let e = ServerJsonRpcMessage::error(rmcp::ErrorData::invalid_request("x", None), None);
        let s = String::from_utf8(encode(&e).unwrap()).unwrap();
        assert!(
            s.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":"#),
            "{s}"
        );
    }
}
