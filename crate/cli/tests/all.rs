//! The command line's integration tests, as one test binary: each file beside this one is a module (its tests
//! are named `file::test`), and the helpers they share are compiled once. One binary
//! instead of one per file: the dependencies' generic code is built and linked once.

mod busy_fleet;
mod fixture;
mod live_client;
mod nats_server;
mod nginx;
mod patience;
mod store_writer;

mod advisories;
mod alerts;
mod api;
mod at_risk;
mod bounds;
mod closed_pipe;
mod consistent_cut;
mod container;
mod credentials;
mod departures;
mod deploy;
mod exporter;
mod help;
mod layout;
mod leader_store;
mod live;
mod many_jobs;
mod metrics;
mod nginx_auth;
mod outputs;
mod plan_text;
mod proxy;
mod recording;
mod replicas;
mod review;
mod rules_store;
mod serve_assets;
mod serve_hosts;
mod serve_limits;
mod serve_shared;
mod serve_stale;
mod simulate;
mod what_if;
