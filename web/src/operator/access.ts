// Keys & users (admins; a read key sees the lists): the operator's API keys with their scopes,
// last use and state, made, rotated and revoked here; the back-office users with their roles,
// added, changed and disabled here. A new key's secret is shown once, on this page only.

import { call, can } from "./api";
import { esc, fields, table, when } from "./dom";
import type { KeyList, NewKey, Rotated, UserList } from "./types";

const ROLES = ["viewer", "support", "finance", "admin"];

export async function showAccess(view: HTMLElement, shown = ""): Promise<void> {
  const [keyList, userList] = await Promise.all([
    call<KeyList>("GET", "/v1/operator/keys"), call<UserList>("GET", "/v1/operator/users"),
  ]);
  const admin = can("admin");
  view.innerHTML = `
    <h1>Keys &amp; users</h1>
    ${shown ? `<p class="secret" role="status">New key (shown once, copy it now): <code id="new-secret">${esc(shown)}</code></p>` : ""}
    <h2>API keys</h2>
    ${table(["Name", "Scopes", "State", "Created", "Last used", "Revoked at", ""], keyList.keys.map((k) => [
      esc(k.name), esc(k.scopes.join(", ")), esc(k.state), when(k.created_at), when(k.last_used_at), when(k.revoked_at),
      admin && k.state === "active" ? `<button type="button" data-rotate="${k.id}">Rotate</button>
        <button type="button" class="danger" data-revoke="${k.id}">Revoke</button>` : "",
    ]), "keys")}
    ${admin ? `<form id="new-key" class="filters">
      <label>Key name <input name="name" required maxlength="60"></label>
      ${["rounds", "read", "write"].map((s) => `<label><input type="checkbox" name="scope-${s}"> ${s}</label>`).join("")}
      <button type="submit">Create key</button></form>
      <form id="grace" class="filters"><label>Grace period of a rotation (hours) <input name="hours" type="number" min="0" max="720" value="24"></label></form>` : ""}
    <h2>Users</h2>
    ${table(["Name", "Role", "Created", "State", ""], userList.users.map((u) => [
      esc(u.name), admin ? `<select data-role="${u.id}" aria-label="role of ${esc(u.name)}">${ROLES.map((r) =>
        `<option ${r === u.role ? "selected" : ""}>${r}</option>`).join("")}</select>` : esc(u.role),
      when(u.created_at), u.disabled ? "disabled" : u.locked_until ? `locked until ${when(u.locked_until)}` : "active",
      admin ? `<button type="button" data-disable="${u.id}" data-now="${u.disabled ? "" : "1"}">${u.disabled ? "Enable" : "Disable"}</button>` : "",
    ]), "users")}
    ${admin ? `<form id="new-user" class="filters">
      <label>User name <input name="name" required maxlength="100"></label>
      <label>Password <input name="password" type="password" autocomplete="new-password" required minlength="10"></label>
      <label>Role <select name="role">${ROLES.map((r) => `<option>${r}</option>`).join("")}</select></label>
      <button type="submit">Add user</button></form>` : ""}
    <p class="error" role="alert" id="access-error"></p>`;
  const failed = (error: unknown) => {
    (view.querySelector("#access-error") as HTMLElement).textContent = error instanceof Error ? error.message : String(error);
  };
  const act = (action: () => Promise<string | void>) => action().then((secret) => showAccess(view, secret ?? ""), failed);
  view.querySelector<HTMLFormElement>("#new-key")?.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = fields(event.target as HTMLFormElement);
    const scopes = ["rounds", "read", "write"].filter((s) => chosen[`scope-${s}`]);
    act(async () => (await call<NewKey>("POST", "/v1/operator/keys", { name: chosen.name, scopes })).secret);
  });
  view.querySelectorAll<HTMLButtonElement>("button[data-revoke]").forEach((button) => button.addEventListener("click", () => {
    if (confirm("Revoke this key now? Every request with it is refused from now on.")) {
      act(async () => { await call("POST", `/v1/operator/keys/${button.dataset.revoke}/revoke`); });
    }
  }));
  view.querySelectorAll<HTMLButtonElement>("button[data-rotate]").forEach((button) => button.addEventListener("click", () => {
    const hours = Number(fields(view.querySelector("#grace") as HTMLFormElement).hours || 0);
    act(async () => (await call<Rotated>("POST", `/v1/operator/keys/${button.dataset.rotate}/rotate`,
      { grace_seconds: Math.round(hours * 3600) })).secret);
  }));
  view.querySelector<HTMLFormElement>("#new-user")?.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = fields(event.target as HTMLFormElement);
    act(async () => { await call("POST", "/v1/operator/users", chosen); });
  });
  view.querySelectorAll<HTMLSelectElement>("select[data-role]").forEach((select) => select.addEventListener("change", () => {
    act(async () => { await call("POST", `/v1/operator/users/${select.dataset.role}`, { role: select.value }); });
  }));
  view.querySelectorAll<HTMLButtonElement>("button[data-disable]").forEach((button) => button.addEventListener("click", () => {
    act(async () => { await call("POST", `/v1/operator/users/${button.dataset.disable}`, { disabled: !!button.dataset.now }); });
  }));
}
