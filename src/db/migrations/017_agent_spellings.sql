-- How often each spelling of a registered agent (name, city and state as written, with its words)
-- occurs among the entities of its group (agent_key, zip5). A daily file moves these counts by the
-- difference and reshows only its groups from them, instead of rereading every entity of a touched
-- group: the largest serve several hundred thousand entities at full scale (18 to 40 s a file).
CREATE TABLE registry.agent_spellings (
  agent_key  text COLLATE "C" NOT NULL,
  zip5       text COLLATE "C" NOT NULL,
  name       text NOT NULL,
  city       text,
  state      text,
  words      text[] NOT NULL,
  n          integer NOT NULL
);
INSERT INTO registry.agent_spellings (agent_key, zip5, name, city, state, words, n)
SELECT agent_key, coalesce(agent_zip5, ''), agent_name, agent_city, agent_state, agent_words, count(*)
FROM registry.entities WHERE agent_key IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6;
CREATE INDEX agent_spellings_group_idx ON registry.agent_spellings (agent_key, zip5);
