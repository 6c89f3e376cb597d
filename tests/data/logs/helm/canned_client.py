"""A HELM client for the fixture: answers a fixed letter per model (no weights)."""

try:
    from helm.clients.simple_client import SimpleClient
except ImportError:  # pytest's --doctest-modules imports this file where crfm-helm is absent
    SimpleClient = object


class CannedClient(SimpleClient):
    def invoke_model(self, raw_request):
        letter = {"model-a": "A", "model-b": "B"}[raw_request["engine"]]
        return {"completions": [letter] * raw_request["num_completions"]}
