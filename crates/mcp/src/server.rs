//! `pith mcp`: the MCP server over stdio (rmcp), serving the tool table. stdout carries the
//! protocol and nothing else; pith's own messages go to stderr.
//!
//! Each answer is sent once, as the single text block of the tool result: the same bytes the
//! CLI prints, no `structuredContent` copy, no `outputSchema` (docs/decisions.md says why).
//! Blocking engine calls run on the blocking pool; a cancelled request sets its call's cancel
//! flag, which kills the runner's process group; tools that start runners run one at a time.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, CustomRequest, CustomResult, ErrorCode,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, ServerInitializeError};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::tools::{self, Call, ToolDef};
use crate::transport::{Lines, Observer, CLIENT_METHODS};
use crate::workspace::{Workspace, Workspaces, ROOT_ARG};

/// How long a client may cache `tools/list` (protocol 2026-07-28 and later): the tool set
/// never changes while the server runs, so the longest TTL clients accept, one day.
pub const LIST_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// How long shutdown waits for cancelled calls to wind down (a runner gets 3 s after SIGTERM
/// before its group is killed).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// How `pith mcp` was started.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The workspace root; else the workspace found from the current directory.
    pub root: Option<PathBuf>,
    /// One-line descriptions, for hosts that also get the instructions block.
    pub slim: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot read the current directory: {0}")]
    Cwd(std::io::Error),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the client did not complete the MCP handshake: {0}")]
    Handshake(String),
}

/// The `tools/list` declarations, in order.
pub fn declarations(slim: bool) -> Vec<Tool> {
    tools::TOOLS.iter().map(|t| declaration(t, slim)).collect()
}

fn declaration(t: &ToolDef, slim: bool) -> Tool {
    let mut schema: JsonObject =
        serde_json::from_str(t.schema).expect("tool schemas are JSON objects");
    // The runner names, in full declarations only: the slim ones' budget has no room, and a
    // wrong name is answered in band with the list.
    if let (false, Some(runner)) = (slim, runner_property(&mut schema)) {
        let names = pith_engine::ecosystem::RUNNER_NAMES.iter();
        let names: Vec<serde_json::Value> = names.map(|n| (*n).into()).collect();
        runner.insert("enum".into(), names.into());
    }
    // Every tool that answers about a workspace takes `root` (see `workspace.rs`); a schema
    // that declares it (with its description) keeps its own.
    if t.workspace {
        if let Some(properties) = schema
            .get_mut("properties")
            .and_then(serde_json::Value::as_object_mut)
        {
            properties
                .entry(ROOT_ARG)
                .or_insert_with(|| serde_json::json!({"type": "string"}));
        }
    }
    let mut tool = Tool::new(
        t.name,
        if slim { t.slim } else { t.description },
        Arc::new(schema),
    );
    if t.read_only {
        tool = tool.with_annotations(ToolAnnotations::new().read_only(true));
    }
    tool
}

/// The schema's `runner` property, if it has one.
fn runner_property(schema: &mut JsonObject) -> Option<&mut JsonObject> {
    schema
        .get_mut("properties")?
        .as_object_mut()?
        .get_mut("runner")?
        .as_object_mut()
}

/// Serves MCP on stdin/stdout until the client closes stdin or pith is signalled.
pub fn serve(options: Options) -> Result<(), ServeError> {
    let cwd = std::env::current_dir().map_err(ServeError::Cwd)?;
    // A signal to pith kills the runner groups it started (the engine watches this flag).
    pith_engine::signals::install();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let server = Server::new(Workspaces::new(options.root, cwd), options.slim);
    let calls = Arc::clone(&server.calls);
    let result = runtime.block_on(async move {
        let (read, write) = rmcp::transport::stdio_pipes();
        // The client's roots changed: calls after the notification wait for the new ones.
        let ws = Arc::clone(&server.workspaces);
        let observer: Observer = Box::new(move |m| {
            if let ClientJsonRpcMessage::Notification(n) = m {
                if matches!(
                    n.notification,
                    ClientNotification::RootsListChangedNotification(_)
                ) {
                    ws.unsettle();
                }
            }
        });
        let running = tokio::select! {
            running = server.serve(Lines::new(read, write, Some(observer))) => match running {
                Ok(running) => running,
                // The client went before starting a session: a probe (`server/discover`
                // alone), or a host checking that the command starts. Nothing failed.
                Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
                Err(e) => return Err(ServeError::Handshake(e.to_string())),
            },
            () = interrupted() => return Ok(()),
        };
        let stop = running.cancellation_token();
        tokio::spawn(async move {
            interrupted().await;
            stop.cancel();
        });
        let _ = running.waiting().await;
        Ok(())
    });
    // Whatever still runs is cancelled (its runner group killed) before pith goes.
    calls.cancel_all();
    calls.wait_idle(SHUTDOWN_GRACE);
    // A blocking stdin read cannot be cancelled; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

/// Resolves once pith has received SIGINT, SIGTERM or SIGHUP.
async fn interrupted() {
    while !pith_engine::signals::interrupted() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The cancel flags of the calls in flight.
#[derive(Default)]
struct Calls(Mutex<Vec<Arc<AtomicBool>>>);

impl Calls {
    fn start(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        self.lock().push(Arc::clone(&flag));
        flag
    }
    fn end(&self, flag: &Arc<AtomicBool>) {
        self.lock().retain(|f| !Arc::ptr_eq(f, flag));
    }
    fn cancel_all(&self) {
        for f in self.lock().iter() {
            f.store(true, Ordering::Relaxed);
        }
    }
    fn wait_idle(&self, grace: Duration) {
        let until = Instant::now() + grace;
        while !self.lock().is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<AtomicBool>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct Server {
    workspaces: Arc<Workspaces>,
    tools: Vec<Tool>,
    /// Held by a call of an exclusive tool from before it starts until its runners are gone:
    /// one run at a time across workspaces too, since runs compete for the same cores.
    exclusive: tokio::sync::Mutex<()>,
    calls: Arc<Calls>,
}

impl Server {
    fn new(workspaces: Arc<Workspaces>, slim: bool) -> Self {
        Server {
            workspaces,
            tools: declarations(slim),
            exclusive: tokio::sync::Mutex::new(()),
            calls: Arc::default(),
        }
    }

    async fn call(
        &self,
        def: &'static ToolDef,
        mut args: JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let _turn = if def.exclusive {
            tokio::select! {
                guard = self.exclusive.lock() => Some(guard),
                () = context.ct.cancelled() => return Err(cancelled()),
            }
        } else {
            None
        };
        let workspace = if def.workspace {
            let offers_roots = context
                .peer
                .peer_info()
                .is_some_and(|info| info.capabilities.roots.is_some());
            if !offers_roots {
                // No roots to wait for: a client without the capability, or a session without
                // the handshake (protocol 2026-07-28).
                self.workspaces.settle();
            }
            match self.workspaces.for_call(&mut args).await {
                Ok(found) => Some(found),
                Err(why) => return Ok(CallToolResult::error(vec![ContentBlock::text(why)])),
            }
        } else {
            // A tool that reads no workspace takes `root` too, and ignores it: an agent may
            // pass it to every call.
            args.remove(ROOT_ARG);
            None
        };
        let progress = progress(context);
        let cancel = self.calls.start();
        let flag = Arc::clone(&cancel);
        let mut task = tokio::task::spawn_blocking(move || {
            let none = Workspace::none();
            let ws = workspace.as_deref().unwrap_or(&none);
            let watcher = ws.watcher();
            let answer = (def.run)(&Call {
                root: &ws.root,
                watcher: watcher.clone(),
                args: &args,
                cancel: &flag,
                progress,
                lookups: &ws.lookups,
            });
            // Said once, where pith's own messages go.
            if let Some(news) = watcher.and_then(|w| w.failure_news()) {
                eprintln!("pith: {news}");
            }
            answer
        });
        let outcome = tokio::select! {
            outcome = &mut task => outcome,
            () = context.ct.cancelled() => {
                // Kill the runner's group, and keep the turn until it is gone.
                cancel.store(true, Ordering::Relaxed);
                (&mut task).await
            }
        };
        self.calls.end(&cancel);
        let mut result = match outcome {
            Ok(Ok(answer)) => CallToolResult::success(vec![ContentBlock::text(answer)]),
            Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(one_line(&e.to_string()))]),
            Err(e) => {
                return Err(ErrorData::internal_error(
                    format!("{} failed: {e}", def.name),
                    None,
                ))
            }
        };
        // `isError` only when set: a field without signal is left out.
        if result.is_error == Some(false) {
            result.is_error = None;
        }
        Ok(result)
    }
}

/// Asks the client for its roots (in a task of its own: the answer comes through the service
/// loop) and adopts them; a client that cannot answer leaves the server's own directory's.
/// Roots are deprecated from protocol 2026-07-28 on, but the handshake sessions every host
/// opens today still have them, and they are how a host names its workspace.
#[allow(deprecated)]
fn ask_roots(workspaces: Arc<Workspaces>, peer: Peer<RoleServer>) {
    tokio::spawn(async move {
        match peer.list_roots().await {
            Ok(list) => {
                let uris: Vec<String> = list.roots.into_iter().map(|r| r.uri).collect();
                workspaces.adopt(&uris);
            }
            Err(e) => {
                eprintln!("pith: the client's roots/list failed: {e}");
                workspaces.settle();
            }
        }
    });
}

/// When the request carries a `progressToken`: the run's heartbeat, sent as progress
/// notifications (hosts reset their request timeout on each). `progress` is the seconds since
/// the run began (it must grow with each notification, and a long test may end none);
/// `message` says what runs and how many tests are done.
fn progress(context: &RequestContext<RoleServer>) -> Option<tools::Progress> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let runtime = tokio::runtime::Handle::current();
    Some(Arc::new(move |pulse: &pith_engine::Pulse| {
        let note = ProgressNotificationParam::new(token.clone(), pulse.elapsed.as_secs() as f64)
            .with_message(pulse.message());
        let peer = peer.clone();
        runtime.spawn(async move {
            let _ = peer.notify_progress(note).await;
        });
    }))
}

fn cancelled() -> ErrorData {
    ErrorData::internal_error("cancelled", None)
}

/// Error text is one line: a multi-line cause is joined.
fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("pith", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::with_all_items(self.tools.clone());
        let caches = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        if caches {
            result = result
                .with_ttl_ms(LIST_TTL_MS)
                .with_cache_scope(CacheScope::Public);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(def) = tools::find(&request.name) else {
            return Err(ErrorData::invalid_params(
                Cow::Owned(format!("unknown tool {:?}", request.name)),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        self.call(def, args, &context).await.map(Into::into)
    }

    /// The session started: the client's roots decide the workspace when it offers them.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if !self.workspaces.follows_roots() {
            return;
        }
        let offers_roots = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if offers_roots {
            ask_roots(Arc::clone(&self.workspaces), context.peer);
        } else {
            self.workspaces.settle();
        }
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        if self.workspaces.follows_roots() {
            ask_roots(Arc::clone(&self.workspaces), context.peer);
        }
    }

    /// rmcp hands over as "custom" any request it could not read as the method it names: a
    /// known method there had params that do not fit it (`-32602`); any other method is
    /// unknown (`-32601`).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        if method == "tools/call" {
            // Say what does not fit: `invalid type: integer `5`, expected a string`.
            let why = match request.params_as::<CallToolRequestParams>() {
                Err(e) => format!(
                    ": {}",
                    e.to_string().split(" at line ").next().unwrap_or("")
                ),
                Ok(_) => String::new(),
            };
            return Err(ErrorData::invalid_params(
                format!("invalid params for tools/call{why}"),
                None,
            ));
        }
        if CLIENT_METHODS.contains(&method) {
            return Err(ErrorData::invalid_params(
                format!("invalid params for {method}"),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ))
    }
}
