"""Signing in to the web app with an API key, once any key exists (``docgraph keys create``).

The key is checked again on every run of the page, so a revoked key signs its session out at the
next click. Without any key ever made the app is open, as the command refuses to listen beyond
loopback then.
"""

from __future__ import annotations

import logging

import streamlit as st

from docgraph.app.api.access import allowed_hosts, host_name
from docgraph.app.auth.keys import ApiKey, KeyStore, Role
from docgraph.errors import ConfigError
from docgraph.ui import common

SESSION_KEY = "signin_key"
log = logging.getLogger(__name__)


def check_host() -> None:
    """Serve only the Host names the API would (loopback, the listen address, DOCGRAPH_ALLOWED_HOSTS):
    a DNS-rebinding page that reaches this server under its own name gets nothing. A session with
    no Host header (an in-process test run) has no browser to protect."""
    given = st.context.headers.get("Host")
    if given is None:
        return
    hosts = allowed_hosts(common.settings().allowed_hosts, str(st.get_option("server.address") or ""))
    if host_name(given) not in hosts:
        st.error(
            f"This server does not answer to {host_name(given)!r} (DOCGRAPH_ALLOWED_HOSTS names the allowed hosts)."
        )
        st.stop()


def signed_in_role() -> Role | None:
    """The role of this session, asking for a key when keys are in use; stops the page until one
    is given. None when no key exists (the app is open). Draws who is signed in, once per run."""
    key = _session_key()
    if key is None:
        return None
    _signed_in_as(key)
    return key.role


def may_write() -> bool:
    """Whether this session may change what is stored (a writer's key, or no keys at all)."""
    key = _session_key()
    return key is None or key.allows("writer")


def ingest_owner() -> str:
    """Whom a UI ingest belongs to: the signed-in key, or the one local user of an app without keys
    (it listens on loopback only). Every session of the owner shows the batch's bar and, once, its
    reports: a reloaded tab is a new session and would otherwise lose them."""
    key = _session_key()
    return f"key {key.key_id}" if key is not None else "local"


def session_allowed() -> bool:
    """Whether this session may see the pages now, without drawing anything (the navigation is
    hidden from a session that must sign in first)."""
    try:
        keys = KeyStore(common.settings().home)
        return not keys.in_use() or keys.verify(st.session_state.get(SESSION_KEY, "")) is not None
    except ConfigError:
        return False


def _session_key() -> ApiKey | None:
    """This session's valid key; None when no key was ever made. Without a valid one (never given,
    or revoked since) the sign-in form is shown and the page stops. Once keys were made, revoking
    the last one locks the app, as it locks the API, rather than opening it to everyone."""
    keys = KeyStore(common.settings().home)
    try:
        in_use = keys.in_use()
    except ConfigError as error:  # a damaged key file: nobody can be told apart, so nobody gets in
        log.error("the web app cannot check keys: %s", error)
        st.error("The server's key file cannot be read, so nobody can sign in (the server's log says why).")
        st.stop()
    if not in_use:
        return None
    key = keys.verify(st.session_state.get(SESSION_KEY, ""))
    if key is None:
        _sign_in_form(keys)
        st.stop()
    return key


def _sign_in_form(keys: KeyStore) -> None:
    st.title("Sign in")
    with st.form("signin_form"):
        given = st.text_input("API key", type="password", key="signin_input", help="From `docgraph keys create`.")
        if st.form_submit_button("Sign in", type="primary"):
            if keys.verify(given.strip()) is None:
                st.error("That key is not valid (or has been revoked).")
            else:
                st.session_state[SESSION_KEY] = given.strip()
                st.rerun()


def _signed_in_as(key: ApiKey) -> None:
    with st.sidebar:
        st.caption(f"Signed in: {key.role} key {key.key_id}" + (f" ({key.name})" if key.name else ""))
        if st.button("Sign out", key="signout_button"):
            st.session_state.clear()  # the questions, answers and query rows go with the key
            st.rerun()
