"""Released sglang wheels: download and hash checks, and the static index of the names each release defines."""
