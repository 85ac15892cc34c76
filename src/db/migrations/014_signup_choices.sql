-- The plan a visitor chose on the pricing page, carried through sign-up to the page after verification, where
-- it is offered for checkout (docs/web.md, "Accounts"); cleared once offered.
ALTER TABLE users ADD COLUMN intended_plan text;
