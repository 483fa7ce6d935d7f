"""The two-step journey of flow.yaml for Locust: log in, take the token
from the answer, send it with the next request; no wait between
iterations. FastHttpUser is Locust's faster client."""
from locust import FastHttpUser, constant, task


class Journey(FastHttpUser):
    wait_time = constant(0)

    @task
    def login_then_items(self):
        r = self.client.get("/login.json", name="login")
        token = r.json()["token"]
        self.client.get("/items.json", headers={"Authorization": "Bearer " + token}, name="items")
