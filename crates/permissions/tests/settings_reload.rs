//! Live reload of the settings files, on real files through the real pipeline: an edit, a broken
//! file keeping its deny rules, a file replaced by a rename (as editors save), deleted and made
//! again, a settings directory that appears later, a burst of writes, a rewrite within one clock
//! tick, hooks following the files, and the fallback that compares on every call.
//!
//! Nothing here sleeps to order events: a test waits, with a bound that only turns a hang into a
//! failure, on the engine's reload count or on its settings watch's event count, and after the
//! watch has reported, the very next decision must give the new answer. The count is marked seen
//! after each decision, not only when a wait ends: one write makes several events, and one that
//! arrives after a wait but before the decision took the watch's flag would otherwise end the
//! next wait before that step's own report.

mod perm_support;

use std::time::Duration;

use hands_core::{Behavior, PermissionMode, PermissionPolicy};
use hands_permissions::PermissionEngine;
use hands_test_support::wait_for_change;
use perm_support::{Fixture, explain};
use serde_json::json;
use tokio::sync::watch::Receiver;

/// Wait (on reload notifications, not on time) until `condition` holds. The timeout only guards
/// against a hang; the test fails if it fires.
async fn wait_for_reload<F, Fut>(permissions: &PermissionEngine, mut condition: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let mut reloads = permissions.subscribe();
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if condition().await {
                return;
            }
            reloads.changed().await.expect("the engine is alive");
        }
    })
    .await;
    assert!(waited.is_ok(), "the settings change was never picked up");
}

async fn behavior(engine: &hands_core::Engine, command: &str) -> Behavior {
    explain(engine, "Bash", json!({"command": command})).await.expect("Bash is in the pool").behavior
}

/// The settings watch of an engine loaded without `watch`: it starts at the second decision.
/// Returns its event count, marked seen.
async fn started_watch(permissions: &PermissionEngine, engine: &hands_core::Engine) -> Receiver<u64> {
    assert!(permissions.watch_events().is_none(), "no watch before the second decision");
    behavior(engine, "true").await;
    behavior(engine, "true").await;
    let mut events = permissions.watch_events().expect("the second decision starts the watch");
    events.mark_unchanged();
    events
}

#[tokio::test]
async fn a_changed_file_takes_effect_and_a_broken_one_keeps_its_deny_rules() {
    let fx = Fixture::new();
    fx.write_settings("project", &json!({"permissions": {"deny": ["Bash(rm *)"]}}));
    let mut options = fx.options();
    options.watch = true;
    let permissions = PermissionEngine::load(&options).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    assert_eq!(behavior(&engine, "rm -rf x").await, Behavior::Deny);
    assert_eq!(behavior(&engine, "npm test").await, Behavior::Ask);

    // A real edit of the file: the new allow rule applies without a restart.
    let path = fx.settings_path("project");
    std::fs::write(&path, r#"{"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(npm test)"]}}"#).unwrap();
    wait_for_reload(&permissions, || async { behavior(&engine, "npm test").await == Behavior::Allow }).await;

    // A typo: the file is no longer JSON. Its rules stay in force and a warning says so.
    std::fs::write(&path, r#"{"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(npm test)"],}"#).unwrap();
    wait_for_reload(&permissions, || async { permissions.warnings().iter().any(|w| w.contains("trailing comma")) })
        .await;
    let warning = permissions.warnings().into_iter().find(|w| w.contains("trailing comma")).unwrap();
    assert!(warning.starts_with(&format!("{}:1:", path.display())), "{warning}");
    assert!(warning.contains("last valid rules stay in force (1 allow, 0 ask, 1 deny)"), "{warning}");
    assert_eq!(behavior(&engine, "rm -rf x").await, Behavior::Deny);
    assert_eq!(behavior(&engine, "npm test").await, Behavior::Allow);

    // Valid JSON of the wrong shape is just as broken: the deny rule stays.
    std::fs::write(&path, r#"{"permissions": {"deny": "Bash(rm *)", "allow": ["Bash(npm test)"]}}"#).unwrap();
    wait_for_reload(&permissions, || async { permissions.warnings().iter().any(|w| w.contains("permissions.deny")) })
        .await;
    assert_eq!(behavior(&engine, "rm -rf x").await, Behavior::Deny);

    // Fixed without the deny rule: now it is gone.
    std::fs::write(&path, r#"{"permissions": {"allow": ["Bash(npm test)"]}}"#).unwrap();
    wait_for_reload(&permissions, || async { behavior(&engine, "rm -rf x").await == Behavior::Ask }).await;
    assert!(permissions.warnings().is_empty(), "{:?}", permissions.warnings());
}

#[tokio::test]
async fn a_watching_engine_reloads_between_calls() {
    // What an MCP server's `tools/list_changed` relies on: no call comes, the reload still does.
    let fx = Fixture::new();
    let mut options = fx.options();
    options.watch = true;
    let permissions = PermissionEngine::load(&options).unwrap();
    let mut reloads = permissions.subscribe();
    reloads.mark_unchanged();
    fx.write_settings("local", &json!({"permissions": {"deny": ["WebSearch"]}}));
    let waited = tokio::time::timeout(Duration::from_secs(30), async {
        while !PermissionPolicy::denied_tools(&permissions).contains(&"WebSearch".to_string()) {
            reloads.changed().await.expect("the engine is alive");
        }
    })
    .await;
    assert!(waited.is_ok(), "the new settings directory and file were never reloaded without a call");
}

#[tokio::test]
async fn the_second_decision_starts_the_watch_and_sees_what_changed_before() {
    let fx = Fixture::new();
    fx.write_settings("user", &json!({"permissions": {"allow": ["Bash(make)"]}}));
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    assert_eq!(behavior(&engine, "make").await, Behavior::Allow);
    assert!(permissions.watch_events().is_none(), "one decision makes no watcher");
    fx.write_settings("user", &json!({"permissions": {"deny": ["Bash(make)"]}}));
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
    assert!(permissions.watch_events().is_some());
}

#[tokio::test]
async fn a_settings_folder_created_later_is_followed_and_made_again() {
    let fx = Fixture::new();
    // No `.claude/` in the project yet: the watch starts on the project root.
    let local = fx.settings_path("local");
    let claude = local.parent().unwrap().to_path_buf();
    assert!(!claude.exists());
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    let mut events = started_watch(&permissions, &engine).await;
    assert_eq!(behavior(&engine, "curl x").await, Behavior::Ask);

    events.mark_unchanged();
    fx.write_settings("local", &json!({"permissions": {"deny": ["Bash(curl *)"]}}));
    wait_for_change(&mut events, "the settings watch's report of the new .claude folder").await;
    assert_eq!(behavior(&engine, "curl x").await, Behavior::Deny);
    // Later edits happen inside the new folder, which the watch must now cover.
    events.mark_unchanged();
    fx.write_settings("local", &json!({"permissions": {"allow": ["Bash(curl *)"]}}));
    wait_for_change(&mut events, "the settings watch's report of the edit inside the new folder").await;
    assert_eq!(behavior(&engine, "curl x").await, Behavior::Allow);
    // Calls in between, with nothing changed, keep the answer.
    assert_eq!(behavior(&engine, "curl x").await, Behavior::Allow);

    // The folder removed, then made again: the new folder is watched as well.
    events.mark_unchanged();
    std::fs::remove_dir_all(&claude).unwrap();
    wait_for_change(&mut events, "the settings watch's report of the folder's removal").await;
    assert_eq!(behavior(&engine, "curl x").await, Behavior::Ask);
    events.mark_unchanged();
    std::fs::create_dir(&claude).unwrap();
    wait_for_change(&mut events, "the settings watch's report of the folder made again").await;
    assert_eq!(behavior(&engine, "curl x").await, Behavior::Ask);
    events.mark_unchanged();
    fx.write_settings("local", &json!({"permissions": {"deny": ["Bash(curl *)"]}}));
    wait_for_change(&mut events, "the settings watch's report of the file in the folder made again").await;
    assert_eq!(behavior(&engine, "curl x").await, Behavior::Deny);
}

#[tokio::test]
async fn a_file_replaced_by_a_rename_is_seen() {
    let fx = Fixture::new();
    fx.write_settings("project", &json!({"permissions": {"allow": ["Bash(make)"]}}));
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    let mut events = started_watch(&permissions, &engine).await;
    assert_eq!(behavior(&engine, "make").await, Behavior::Allow);
    // How editors save: the new content goes to a file beside it, renamed over the old one.
    let path = fx.settings_path("project");
    events.mark_unchanged();
    let temp = path.with_file_name(".settings.json.tmp");
    std::fs::write(&temp, r#"{"permissions": {"deny": ["Bash(make)"]}}"#).unwrap();
    std::fs::rename(&temp, &path).unwrap();
    wait_for_change(&mut events, "the settings watch's report of the rename over the settings file").await;
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
}

#[tokio::test]
async fn a_file_deleted_then_made_again_is_seen_both_times() {
    let fx = Fixture::new();
    fx.write_settings("user", &json!({"permissions": {"deny": ["Bash(make)"]}}));
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    let mut events = started_watch(&permissions, &engine).await;
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
    events.mark_unchanged();
    std::fs::remove_file(fx.settings_path("user")).unwrap();
    wait_for_change(&mut events, "the settings watch's report of the deletion").await;
    assert_eq!(behavior(&engine, "make").await, Behavior::Ask);
    events.mark_unchanged();
    fx.write_settings("user", &json!({"permissions": {"deny": ["Bash(make)"]}}));
    wait_for_change(&mut events, "the settings watch's report of the new file").await;
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
}

#[tokio::test]
async fn a_burst_of_writes_ends_in_the_last_one_with_one_reload() {
    let fx = Fixture::new();
    fx.write_settings("project", &json!({"permissions": {}}));
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    let mut events = started_watch(&permissions, &engine).await;
    let reloads = permissions.subscribe();
    let before = *reloads.borrow();
    // A hundred saves in a row, every one of the same length, alternating rules: only the last
    // (a deny) may be in force afterwards.
    let path = fx.settings_path("project");
    let (allow, deny) =
        (r#"{"permissions": {"allow": ["Bash(make)"]}}"#, r#"{"permissions": {"deny" : ["Bash(make)"]}}"#);
    assert_eq!(allow.len(), deny.len());
    for i in 0..100 {
        std::fs::write(&path, if i % 2 == 0 { allow } else { deny }).unwrap();
    }
    wait_for_change(&mut events, "the settings watch's report of the burst").await;
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
    assert_eq!(*reloads.borrow() - before, 1, "the burst is read once, by the next decision");
    // Events of the burst still on their way only cause a comparison, and the answer holds.
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
}

#[tokio::test]
async fn a_rewrite_of_the_same_length_in_the_same_clock_tick_is_seen() {
    let fx = Fixture::new();
    let path = fx.settings_path("user");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let before = r#"{"permissions": {"allow": ["Bash(make)"]}}"#;
    let after = r#"{"permissions": {"deny" : ["Bash(make)"]}}"#;
    assert_eq!(before.len(), after.len());
    std::fs::write(&path, before).unwrap();
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    assert_eq!(behavior(&engine, "make").await, Behavior::Allow);
    // Same size, same inode, and (within a clock tick) the same modification time.
    std::fs::write(&path, after).unwrap();
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
    // And once the watch runs, the same again.
    let mut events = permissions.watch_events().expect("the second decision started the watch");
    events.mark_unchanged();
    std::fs::write(&path, before).unwrap();
    wait_for_change(&mut events, "the settings watch's report of the rewrite").await;
    assert_eq!(behavior(&engine, "make").await, Behavior::Allow);
}

#[tokio::test]
async fn without_the_watcher_every_decision_compares_and_sees_the_change_at_once() {
    // The fallback (no watcher could be made, a directory could not be watched, a file system
    // that reports nothing): no waiting at all, the next decision compares.
    let fx = Fixture::new();
    fx.write_settings("project", &json!({"permissions": {"allow": ["Bash(make)"]}}));
    let mut options = fx.options();
    options.settings_watcher = false;
    let permissions = PermissionEngine::load(&options).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    for _ in 0..3 {
        assert_eq!(behavior(&engine, "make").await, Behavior::Allow);
    }
    let path = fx.settings_path("project");
    std::fs::write(&path, r#"{"permissions": {"deny": ["Bash(make)"]}}"#).unwrap();
    assert_eq!(behavior(&engine, "make").await, Behavior::Deny);
    let temp = path.with_file_name("new.json");
    std::fs::write(&temp, r#"{"permissions": {"allow": ["Bash(make)"]}}"#).unwrap();
    std::fs::rename(&temp, &path).unwrap();
    assert_eq!(behavior(&engine, "make").await, Behavior::Allow);
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    assert_eq!(behavior(&engine, "make").await, Behavior::Ask);
    let events = permissions.watch_events().expect("the fallback watch exists");
    assert_eq!(*events.borrow(), 0, "the fallback has no watcher to report anything");
}
