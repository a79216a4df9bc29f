"""Creates named Hermes profiles for the bridge's /p/<profile> tests with Hermes' own profile code
(hermes_cli.profiles.create_profile, cloning the default profile's config.yaml and .env, no alias
script), then gives each its own API_SERVER_KEY through hermes_cli.config.save_env_value in that
profile's home. Run with HERMES_HOME set to the default profile's home. JSON in:
{"profiles": {"name": "key"}}. Last stdout line: {"profiles": {"name": "<profile dir>"}}."""
import json
import os
import sys


def main():
    spec = json.load(sys.stdin)
    from hermes_cli import profiles

    out = {}
    for name, key in spec["profiles"].items():
        path = profiles.create_profile(name, clone_config=True, no_alias=True)
        os.environ["HERMES_HOME"] = str(path)
        from hermes_cli import config

        config.save_env_value("API_SERVER_KEY", key)
        out[name] = str(path)
    print(json.dumps({"profiles": out}))


if __name__ == "__main__":
    main()
