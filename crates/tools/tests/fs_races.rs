//! Check-then-use races (issue 22, class 4): a thread swaps a symlink between an inside and an
//! outside target as fast as it can while Read, Write and Edit run in a loop through the real
//! pipeline, for a bounded time each. No byte of the outside file may ever be returned, no file
//! may ever be created outside, and the outside file may never be changed. The file tools defend
//! by opening the path their check resolved with the kernel refusing any symlink on the way
//! (`hands_fs::open_resolved_for_read`, `atomic_write_resolved`); with the tools opening
//! the path as written instead, each loop below finds hits within its time.
//!
//! Grep of one file opens the file its path check resolved (the check the permission decision
//! judged), refusing symlinks. Grep and Glob walks open the folder they start from the same way
//! and reach every file they found from that descriptor one name at a time, never through a
//! symlink (`hands_search::open`): Grep opens, and Glob dates, only what verifies. Write makes
//! missing folders one at a time without following symlinks
//! (`atomic_write_resolved_making_folders`). Their loops below swap a file or a folder for a
//! symlink to outside while the tool runs; before these defences, each search loop had hits
//! (docs/security.md has the figures).
#![cfg(all(unix, feature = "read", feature = "write", feature = "edit", feature = "grep", feature = "glob"))]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hands_core::{Engine, PermissionMode, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_fs::FileState;
use serde_json::json;

/// How long each tool's loop runs: 1.5 s in CI, or `HANDS_RACE_MS` milliseconds (for a longer
/// run on demand; the figures in the race report were taken with 10 000).
fn race_time() -> Duration {
    let ms = std::env::var("HANDS_RACE_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(1500);
    Duration::from_millis(ms)
}

const SECRET: &str = "OUTSIDE-SECRET-0123456789\n";

struct Race {
    _dirs: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    engine: Engine,
}

impl Race {
    fn new(mode: PermissionMode) -> Self {
        let dirs = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dirs.path()).unwrap();
        let project = base.join("project");
        let outside = base.join("outside");
        fs::create_dir_all(&project).unwrap();
        fs::create_dir_all(&outside).unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(project.clone()),
            state_dir: Some(base.join("state")),
            permission_mode: Some(mode),
            ..Default::default()
        })
        .unwrap();
        let pool = hands_tools::builtin_pool(PoolConfig::default());
        Race { _dirs: dirs, project, outside, engine: Engine::builder(Arc::new(pool), session).build() }
    }

    fn session(&self) -> &Arc<Session> {
        self.engine.session()
    }
}

/// Swaps the symlink `link` between `a` and `b` (atomically, by renaming a fresh link over it)
/// until dropped; counts the swaps.
struct Swapper {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Swapper {
    fn start(link: &Path, a: &Path, b: &Path) -> Self {
        std::os::unix::fs::symlink(a, link).unwrap();
        let (stop, swaps) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
        let (link, a, b) = (link.to_path_buf(), a.to_path_buf(), b.to_path_buf());
        let tmp = link.with_extension("swap");
        let thread = {
            let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    for target in [&b, &a] {
                        let _ = fs::remove_file(&tmp);
                        std::os::unix::fs::symlink(target, &tmp).unwrap();
                        fs::rename(&tmp, &link).unwrap();
                        swaps.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        };
        Swapper { stop, swaps, thread: Some(thread) }
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What one loop saw: calls that did what was asked, calls refused, and hits (the defence failed).
#[derive(Debug, Default)]
struct Tally {
    done: u64,
    refused: u64,
    hits: u64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_never_returns_an_outside_byte() {
    let race = Race::new(PermissionMode::Default);
    let inside = race.project.join("inside.txt");
    fs::write(&inside, "inside content\n").unwrap();
    let secret = race.outside.join("secret.txt");
    fs::write(&secret, SECRET).unwrap();
    let link = race.project.join("link.txt");
    let swapper = Swapper::start(&link, &inside, &secret);
    let mut tally = Tally::default();
    let started = Instant::now();
    while started.elapsed() < race_time() {
        // A fresh view each time: no "file unchanged" stub.
        race.session().file_state().forget(&link);
        let result = race.engine.run_one(ToolCall::new("t", "Read", json!({"file_path": link})), &Turn::new()).await;
        if result.text().contains("OUTSIDE-SECRET") {
            tally.hits += 1;
        } else if result.is_error {
            tally.refused += 1;
        } else {
            tally.done += 1;
        }
    }
    let swaps = swapper.swaps.load(Ordering::Relaxed);
    drop(swapper);
    eprintln!("Read race: {tally:?}, {swaps} swaps");
    assert_eq!(tally.hits, 0, "Read returned outside bytes: {tally:?}");
    assert!(tally.done > 0 && tally.refused > 0, "the race never ran both ways: {tally:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_never_creates_a_file_outside() {
    let race = Race::new(PermissionMode::AcceptEdits);
    let inside_dir = race.project.join("real");
    fs::create_dir(&inside_dir).unwrap();
    let link = race.project.join("sub");
    let swapper = Swapper::start(&link, &inside_dir, &race.outside);
    let mut tally = Tally::default();
    let started = Instant::now();
    let escaped = race.outside.join("new.txt");
    while started.elapsed() < race_time() {
        let input = json!({"file_path": link.join("new.txt"), "content": "written by the race\n"});
        let result = race.engine.run_one(ToolCall::new("t", "Write", input), &Turn::new()).await;
        if escaped.exists() {
            tally.hits += 1;
            fs::remove_file(&escaped).unwrap();
        } else if result.is_error {
            tally.refused += 1;
        } else {
            tally.done += 1;
        }
        let _ = fs::remove_file(inside_dir.join("new.txt"));
        race.session().file_state().forget(&link.join("new.txt"));
    }
    let swaps = swapper.swaps.load(Ordering::Relaxed);
    drop(swapper);
    eprintln!("Write race: {tally:?}, {swaps} swaps");
    assert_eq!(tally.hits, 0, "Write created a file outside: {tally:?}");
    assert!(tally.done > 0 && tally.refused > 0, "the race never ran both ways: {tally:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_never_changes_an_outside_file() {
    let race = Race::new(PermissionMode::AcceptEdits);
    let original = "hello world\n";
    let inside = race.project.join("inside.txt");
    fs::write(&inside, original).unwrap();
    // The same content outside: a read through the swapped link looks current to the edit.
    let secret = race.outside.join("secret.txt");
    fs::write(&secret, original).unwrap();
    let link = race.project.join("link.txt");
    let swapper = Swapper::start(&link, &inside, &secret);
    let mut tally = Tally::default();
    let started = Instant::now();
    while started.elapsed() < race_time() {
        // The model read the file (as it looks inside) before editing it.
        let meta = fs::metadata(&inside).unwrap();
        race.session().file_state().record(&link, FileState::full(original.as_bytes(), &meta));
        let input = json!({"file_path": link, "old_string": "hello", "new_string": "HELLO"});
        let result = race.engine.run_one(ToolCall::new("t", "Edit", input), &Turn::new()).await;
        if fs::read_to_string(&secret).unwrap() != original {
            tally.hits += 1;
            fs::write(&secret, original).unwrap();
        } else if result.is_error {
            tally.refused += 1;
        } else {
            tally.done += 1;
        }
        fs::write(&inside, original).unwrap();
    }
    let swaps = swapper.swaps.load(Ordering::Relaxed);
    drop(swapper);
    eprintln!("Edit race: {tally:?}, {swaps} swaps");
    assert_eq!(tally.hits, 0, "Edit changed the outside file: {tally:?}");
    assert!(tally.done > 0 && tally.refused > 0, "the race never ran both ways: {tally:?}");
}

/// Swaps the real folder `dir` with a symlink to `outside` (the folder is parked beside it and
/// the link takes its place, and back) until dropped; counts the swaps.
struct FolderSwapper {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<u64>>,
}

impl FolderSwapper {
    fn start(dir: &Path, outside: &Path) -> Self {
        // Parked beside the project, not inside it: the walk never meets the parked names.
        let project = dir.parent().unwrap();
        let name = dir.file_name().unwrap().to_string_lossy();
        let parked_dir = project.with_file_name(format!("{name}-parked-dir"));
        let parked_link = project.with_file_name(format!("{name}-parked-link"));
        std::os::unix::fs::symlink(outside, &parked_link).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (stop, dir) = (Arc::clone(&stop), dir.to_path_buf());
            std::thread::spawn(move || {
                let mut swaps = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    fs::rename(&dir, &parked_dir).unwrap();
                    fs::rename(&parked_link, &dir).unwrap();
                    fs::rename(&dir, &parked_link).unwrap();
                    fs::rename(&parked_dir, &dir).unwrap();
                    swaps += 1;
                }
                swaps
            })
        };
        FolderSwapper { stop, thread: Some(thread) }
    }

    /// Stop swapping (the real folder is back in place); the number of swaps.
    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().map_or(0, |t| t.join().unwrap())
    }
}

impl Drop for FolderSwapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Run the `inputs` through `tool` in turn, in a loop for [`race_time`], classifying each
/// result with `judge`; one tally per input.
async fn race_loop(
    race: &Race,
    tool: &str,
    inputs: &[serde_json::Value],
    judge: impl Fn(&str) -> Verdict,
) -> Vec<Tally> {
    let mut tallies: Vec<Tally> = inputs.iter().map(|_| Tally::default()).collect();
    let started = Instant::now();
    while started.elapsed() < race_time() {
        for (input, tally) in inputs.iter().zip(&mut tallies) {
            let result = race.engine.run_one(ToolCall::new("t", tool, input.clone()), &Turn::new()).await;
            match judge(&result.text()) {
                Verdict::Hit => tally.hits += 1,
                Verdict::Done => tally.done += 1,
                Verdict::Refused => tally.refused += 1,
            }
        }
    }
    tallies
}

/// How one call of a race loop ended.
enum Verdict {
    /// The defence failed: something from outside came back.
    Hit,
    /// The call did what was asked, inside.
    Done,
    /// The call was refused, or found nothing.
    Refused,
}

/// A Grep result: an outside line is a hit, the inside line is done.
fn grep_verdict(text: &str) -> Verdict {
    if text.contains("OUTSIDE-SECRET") {
        Verdict::Hit
    } else if text.contains("INSIDE-SECRET") {
        Verdict::Done
    } else {
        Verdict::Refused
    }
}

/// Grep over a folder that is swapped for a symlink to an outside folder holding a file of the
/// same name: the walk may list the folder while it is real and open its file after the swap (or
/// list the outside folder through the link). No outside line may ever be printed. Every other
/// call names the swapped folder itself as `path`, so the folder the walk starts from is raced
/// too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_walk_never_prints_an_outside_line() {
    let race = Race::new(PermissionMode::Default);
    let sub = race.project.join("sub");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("notes.txt"), "INSIDE-SECRET here\n").unwrap();
    fs::write(race.outside.join("notes.txt"), SECRET).unwrap();
    let swapper = FolderSwapper::start(&sub, &race.outside);
    let inputs = [
        json!({"pattern": "SECRET", "output_mode": "content"}),
        json!({"pattern": "SECRET", "output_mode": "content", "path": "sub"}),
    ];
    let [below, root] = <[Tally; 2]>::try_from(race_loop(&race, "Grep", &inputs, grep_verdict).await).unwrap();
    let swaps = swapper.finish();
    eprintln!("Grep walk race: folder below the root {below:?}, the root itself {root:?}, {swaps} swaps");
    assert_eq!((below.hits, root.hits), (0, 0), "Grep printed an outside line: {below:?} {root:?}");
    assert!(below.done > 0 && root.done > 0, "the race never let Grep see the inside file: {below:?} {root:?}");
}

/// Grep of one file (`path` names it) through a symlink swapped between an inside and an outside
/// file: the search must read the file the permission decision judged, never the other one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_of_one_file_never_prints_an_outside_line() {
    let race = Race::new(PermissionMode::Default);
    let inside = race.project.join("inside.txt");
    fs::write(&inside, "INSIDE-SECRET here\n").unwrap();
    let secret = race.outside.join("secret.txt");
    fs::write(&secret, SECRET).unwrap();
    let link = race.project.join("link.txt");
    let swapper = Swapper::start(&link, &inside, &secret);
    let input = [json!({"pattern": "SECRET", "output_mode": "content", "path": "link.txt"})];
    let [tally] = <[Tally; 1]>::try_from(race_loop(&race, "Grep", &input, grep_verdict).await).unwrap();
    let swaps = swapper.swaps.load(Ordering::Relaxed);
    drop(swapper);
    eprintln!("Grep one-file race: {tally:?}, {swaps} swaps");
    assert_eq!(tally.hits, 0, "Grep printed an outside line: {tally:?}");
    assert!(tally.done > 0 && tally.refused > 0, "the race never ran both ways: {tally:?}");
}

/// Glob over a folder swapped for a symlink to an outside folder: a name that exists only
/// outside may never be listed. Every other call names the swapped folder itself as `path`
/// (tallied apart).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn glob_walk_never_lists_an_outside_name() {
    let race = Race::new(PermissionMode::Default);
    let sub = race.project.join("sub");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("inside-name.txt"), "x").unwrap();
    fs::write(race.outside.join("outside-name.txt"), "x").unwrap();
    let swapper = FolderSwapper::start(&sub, &race.outside);
    let inputs = [json!({"pattern": "**/*.txt"}), json!({"pattern": "*.txt", "path": "sub"})];
    let judge = |text: &str| {
        if text.contains("outside-name") {
            Verdict::Hit
        } else if text.contains("inside-name") {
            Verdict::Done
        } else {
            Verdict::Refused
        }
    };
    let [below, root] = <[Tally; 2]>::try_from(race_loop(&race, "Glob", &inputs, judge).await).unwrap();
    let swaps = swapper.finish();
    eprintln!("Glob walk race: folder below the root {below:?}, the root itself {root:?}, {swaps} swaps");
    assert_eq!((below.hits, root.hits), (0, 0), "Glob listed an outside name: {below:?} {root:?}");
    assert!(below.done > 0 && root.done > 0, "the race never let Glob see the inside file: {below:?} {root:?}");
}

/// Write to `a/b/new.txt` while `a` is missing when the path is checked, and a symlink to an
/// outside folder keeps appearing at `a` and disappearing: the folders Write makes must never
/// be made through that link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_never_makes_a_folder_outside() {
    let race = Race::new(PermissionMode::AcceptEdits);
    let a = race.project.join("a");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, a, outside) = (Arc::clone(&stop), a.clone(), race.outside.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                // Fails while Write's own folder is there; removes only the link.
                if std::os::unix::fs::symlink(&outside, &a).is_ok() {
                    swaps += 1;
                }
                if fs::symlink_metadata(&a).is_ok_and(|m| m.file_type().is_symlink()) {
                    let _ = fs::remove_file(&a);
                }
            }
            swaps
        })
    };
    let mut tally = Tally::default();
    let started = Instant::now();
    let escaped = race.outside.join("b");
    let target = a.join("b/new.txt");
    while started.elapsed() < race_time() {
        let input = json!({"file_path": target, "content": "written by the race\n"});
        let result = race.engine.run_one(ToolCall::new("t", "Write", input), &Turn::new()).await;
        if escaped.exists() {
            tally.hits += 1;
            let _ = fs::remove_dir_all(&escaped);
        } else if result.is_error {
            tally.refused += 1;
        } else {
            tally.done += 1;
        }
        if fs::symlink_metadata(&a).is_ok_and(|m| m.is_dir()) {
            let _ = fs::remove_dir_all(&a);
        }
        race.session().file_state().forget(&target);
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("Write folder race: {tally:?}, {swaps} swaps");
    assert_eq!(tally.hits, 0, "Write made a folder outside: {tally:?}");
    assert!(tally.done > 0 && tally.refused > 0, "the race never ran both ways: {tally:?}");
}
