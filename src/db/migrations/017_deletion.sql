-- Deleting a workspace or an account (docs/web.md, "Deleting"): the rows the law has us keep stay (the ledger,
-- payments and billing documents, which name the workspace), the rest is removed or blanked. One mailbox, one
-- trial: the trial's opening is kept with the user, since the workspace it opened may be deleted.
ALTER TABLE workspaces ADD COLUMN deleted_at timestamptz;
ALTER TABLE users ADD COLUMN deleted_at timestamptz;
ALTER TABLE users ADD COLUMN trial_opened_at timestamptz;
UPDATE users u SET trial_opened_at = w.created_at
FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
WHERE m.user_id = u.id AND m.role = 'owner';
