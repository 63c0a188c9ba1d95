"""What the tests share: the installed commands run as a user runs them, runs of both harnesses against stand-in
judges served on 127.0.0.1, and the stand-ins themselves."""
